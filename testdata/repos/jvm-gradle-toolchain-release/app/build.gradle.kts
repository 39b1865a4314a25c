plugins {
    `java-library`
}

// Built on a JDK 21 toolchain, for Java 17 users.
java {
    toolchain {
        languageVersion = JavaLanguageVersion.of(21)
    }
}

tasks.withType<JavaCompile>().configureEach {
    options.release = 17
}
