// A Gradle tool module: its tests use Testcontainers through the version
// catalog and name a Selenium-free browser-less Kafka container.
plugins {
    java
}

dependencies {
    testImplementation(libs.testcontainers.kafka)
    testImplementation("org.junit.jupiter:junit-jupiter:5.11.3")
    // testImplementation("com.microsoft.playwright:playwright:1.40.0") is commented out: not a dependency
    constraints {
        implementation("io.quarkiverse.playwright:quarkus-playwright:2.1.0")  // a version pin, not a dependency
    }
}

repositories {
    mavenCentral()
}
