package com.example.providers;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.service.registry.ImportHttpServices;

/**
 * A team's application that calls four rate-limited APIs: GitHub through an HTTP service client (group
 * {@code repos}), Stripe through a {@code RestClient}, Anthropic through Spring AI's chat model, and a weather API
 * through OkHttp. Its only retry layer is retry-after's starter; {@code application.properties} says which provider
 * each client belongs to.
 */
@SpringBootApplication
@ImportHttpServices(group = "repos", types = GitHubApi.class)
public class FourProvidersApplication {

	public static void main(String[] args) {
		SpringApplication.run(FourProvidersApplication.class, args);
	}

}
