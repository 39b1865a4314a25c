import Config

# The bun hex package installs exactly this release (`mix bun.install`).
config :bun,
  version: "1.3.10",
  assets: [args: ~w(build), cd: Path.expand("../assets", __DIR__)]

config :media, ecto_repos: []
