package com.acme.it;

import org.testcontainers.elasticsearch.ElasticsearchContainer;
import org.testcontainers.containers.MSSQLServerContainer;
import org.testcontainers.utility.DockerImageName;

class SearchIT {
  // Images from registries other than Docker Hub: their hosts are reached while the tests run.
  static String image(String version) {
    return "docker.elastic.co/elasticsearch/elasticsearch-oss:" + version;
  }

  static final MSSQLServerContainer<?> MSSQL =
      new MSSQLServerContainer<>(DockerImageName.parse("mcr.microsoft.com/mssql/server:2022-latest"));

  // Docker Hub's (already the Testcontainers entry's hosts), a path and a URL: none is a registry.
  static final String PG = "postgres:16-alpine";
  static final String FIXTURE = "src/test/resources/data.json";
  static final String DOCS = "https://www.testcontainers.org/modules/elasticsearch/";
  static final String LOCAL = "localhost:5000/acme/search";
}
