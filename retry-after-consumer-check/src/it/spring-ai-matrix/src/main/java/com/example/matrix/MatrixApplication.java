package com.example.matrix;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A team's Spring AI application with four model families (OpenAI, Anthropic, Ollama, Google GenAI), each from
 * Spring AI's own starter. Its build runs the same calls twice: once with retry-after's starter on the classpath
 * (nothing of it configured), once without it.
 */
@SpringBootApplication
public class MatrixApplication {

	public static void main(String[] args) {
		SpringApplication.run(MatrixApplication.class, args);
	}

}
