import Config

config :notes, Notes.Repo, database: "notes_test", pool: Ecto.Adapters.SQL.Sandbox
