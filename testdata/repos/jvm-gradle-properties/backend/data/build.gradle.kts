plugins {
    kotlin("jvm")
}

kotlin {
    jvmToolchain(libs.versions.java.toolchain.get().toInt())
}

java {
    sourceCompatibility = JavaVersion.toVersion(providers.gradleProperty("javaVersion").get())
}
