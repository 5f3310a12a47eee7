package com.example.models;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A team's Spring AI application: OpenAI and Anthropic chat models from Spring AI's starters, and retry-after's
 * starter. It declares nothing of retry-after: adding the starter puts it under both model clients.
 */
@SpringBootApplication
public class ModelsApplication {

	public static void main(String[] args) {
		SpringApplication.run(ModelsApplication.class, args);
	}

}
