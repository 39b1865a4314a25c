import Config

config :notes, ecto_repos: [Notes.Repo]

# mdex's NIF is built from its sources: the git checkout we pin has no
# precompiled checksums.
System.put_env("MDEX_BUILD", "1")

import_config "#{config_env()}.exs"
