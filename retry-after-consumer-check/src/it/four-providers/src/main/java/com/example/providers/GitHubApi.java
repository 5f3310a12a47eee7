package com.example.providers;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;

/**
 * GitHub's REST API as an HTTP service client of group {@code repos}, whose base URL is
 * {@code spring.http.serviceclient.repos.base-url}.
 */
@HttpExchange("/repos")
public interface GitHubApi {

	@GetExchange("/{owner}/{repo}")
	String repository(@PathVariable String owner, @PathVariable String repo);

}
