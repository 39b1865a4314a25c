# frozen_string_literal: true

Gem::Specification.new do |spec|
  spec.name = "crm_engine"
  spec.version = "0.30.0"
  spec.summary = "A CRM as a Rails engine"
  spec.required_ruby_version = Gem::Requirement.new(">= 3.1", "< 4.1")
  spec.add_dependency "rails", "~> 7.2"
end
