defmodule MergeBot.MixProject do
  use Mix.Project

  def project do
    [app: :merge_bot, version: "0.1.0", elixir: "~> 1.12", deps: deps()]
  end

  defp deps do
    [{:phoenix, "~> 1.6"}, {:postgrex, ">= 0.0.0"}]
  end
end
