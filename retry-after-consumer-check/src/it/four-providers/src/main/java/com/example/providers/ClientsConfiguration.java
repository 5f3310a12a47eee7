package com.example.providers;

import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;
import okhttp3.OkHttpClient;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

/**
 * The two clients the application builds itself: Stripe's {@code RestClient} from Boot's builder (its provider is
 * chosen by host, {@code retry.after.providers.stripe.hosts}), and the weather API's {@code OkHttpClient}, every
 * request of which goes to provider {@code weather}.
 */
@Configuration(proxyBeanMethods = false)
class ClientsConfiguration {

	@Bean
	RestClient stripeClient(RestClient.Builder builder, @Value("${stripe.base-url}") String baseUrl) {
		return builder.baseUrl(baseUrl).build();
	}

	@Bean
	OkHttpClient weatherClient(RetryAfterOkHttp retryAfter) {
		return retryAfter.apply(new OkHttpClient.Builder(), "weather").build();
	}

}
