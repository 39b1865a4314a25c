Gem::Specification.new do |gem|
  gem.name = 'crm'
  gem.version = '1.0.0'
  # gem.required_ruby_version = '>= 2.7'
  gem.required_ruby_version = '>= 3.1'
end
