defmodule Broken.MixProject do
  use Mix.Project

  def project do
    [app: :broken, version: "0.1.0", elixir: "~> one point fifteen", deps: deps()]
  end

  defp deps, do: [{:jason, "~> 1.4"}]
end
