defmodule Notes.MixProject do
  use Mix.Project

  def project do
    [
      app: :notes,
      version: "0.3.0",
      elixir: "~> 1.17",
      start_permanent: Mix.env() == :prod,
      aliases: aliases(),
      deps: deps()
    ]
  end

  defp deps do
    [
      {:ecto_sql, "~> 3.12"},
      {:postgrex, ">= 0.0.0"},
      # Markdown rendering: a Rust NIF, prebuilt unless MDEX_BUILD is set
      {:mdex, "~> 0.2"},
      {:lazy_html, "~> 0.1", only: :test}
    ]
  end

  defp aliases do
    [
      setup: ["deps.get", "ecto.setup"],
      "ecto.setup": ["ecto.create", "ecto.load", "run priv/repo/seeds.exs"],
      test: ["ecto.create --quiet", "ecto.load --skip-if-loaded", "test"]
    ]
  end
end
