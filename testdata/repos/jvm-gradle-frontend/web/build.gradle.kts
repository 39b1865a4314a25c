plugins {
    id("com.github.node-gradle.node")
}

node {
    download.set(true)
    version.set("20.11.1")
    pnpmVersion.set("9.1.0")
    distBaseUrl.set("https://nodejs.mirror.example.org/dist")
}
