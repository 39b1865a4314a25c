import Config

# Only the release image builds explorer from source.
config :rustler_precompiled, :force_build, explorer: true
