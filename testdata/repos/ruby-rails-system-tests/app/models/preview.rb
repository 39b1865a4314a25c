require "open3"

class Preview
  def render(path)
    output, _err = Open3.capture3("f3d", path, "--output=#{path}.png")
    system("convert #{path}.png -resize 50% #{path}.jpg")
    ActiveRecord::Base.connection.system("not a program")
    output
  end
end

=begin
  The old renderer, kept for reference:
  system("ffmpeg -i #{path} #{path}.mp4")
=end
