defmodule Media.Thumbnail do
  def resize(path) do
    {_, 0} = System.cmd("mogrify", ["-resize", "320x", path])
    System.find_executable("ffprobe")
  end
end
