rootProject.name = "client-library"
include("app")
