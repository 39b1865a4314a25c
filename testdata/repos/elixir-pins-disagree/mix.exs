defmodule Board.MixProject do
  use Mix.Project

  def project do
    [
      app: :board,
      version: "0.9.0",
      elixir: "~> 1.17",
      deps: deps()
    ]
  end

  defp deps do
    [
      {:phoenix, "~> 1.7"},
      {:jason, "~> 1.4"}
    ]
  end
end
