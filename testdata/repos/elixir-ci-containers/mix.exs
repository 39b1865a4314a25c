# Written from what Phoenix applications that test against containers state:
# CI pulls the compose services and runs the suite in the app's own image.
defmodule Board.MixProject do
  use Mix.Project

  def project do
    [app: :board, version: "0.1.0", elixir: "~> 1.17", deps: deps()]
  end

  defp deps do
    [{:phoenix, "~> 1.7"}, {:postgrex, ">= 0.0.0"}]
  end
end
