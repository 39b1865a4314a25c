# Written from what Phoenix applications that shell out state (thumbnails
# with ImageMagick, probes with ffmpeg).
defmodule Media.MixProject do
  use Mix.Project

  @elixir_requirement "~> 1.16"

  def project do
    [app: :media, version: "0.1.0", elixir: @elixir_requirement, deps: deps()]
  end

  defp deps do
    [{:jason, "~> 1.4"}, {:bun, "~> 1.4", runtime: Mix.env() == :dev}]
  end
end
