package io.github.retryafter.boot.autoconfigure;

import java.io.IOException;

import com.google.auth.oauth2.GoogleCredentials;
import com.google.genai.Client;
import okhttp3.OkHttpClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.model.google.genai.autoconfigure.chat.GoogleGenAiConnectionProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

import io.github.retryafter.boot.okhttp.RetryAfterOkHttp;
import io.github.retryafter.boot.springai.GeminiClients;
import io.github.retryafter.boot.springai.ModelClients;

/**
 * Puts the starter under Spring AI's Google GenAI (Gemini) chat model, as its one retry layer. The SDK sends over an
 * OkHttp client of its own that no Spring AI hook reaches, so the starter builds Spring AI's {@link Client} bean
 * itself, from Spring AI's own connection properties ({@code spring.ai.google.genai.*}) as Spring AI does, through
 * {@link GeminiClients}: provider {@code gemini} whatever the base URL, the SDK's retries off. An application's own
 * {@code Client} bean wins (a WARN says it is not under the starter unless built through {@link GeminiClients}).
 * Unless {@code retry.after.spring-ai.enabled=false}.
 */
// after the Spring AI configuration, so the record of model clients exists when Spring AI builds its chat model early
@AutoConfiguration(after = { RetryAfterOkHttpAutoConfiguration.class, RetryAfterSpringAiAutoConfiguration.class },
		beforeName = "org.springframework.ai.model.google.genai.autoconfigure.chat.GoogleGenAiChatAutoConfiguration")
@ConditionalOnClass({ OkHttpClient.class, Client.class, GoogleGenAiChatModel.class })
@ConditionalOnBean(RetryAfterOkHttp.class)
@ConditionalOnBooleanProperty(name = "retry.after.spring-ai.enabled", matchIfMissing = true)
public final class RetryAfterGeminiAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RetryAfterGeminiAutoConfiguration.class);

	/** Looks the starter up at the first request only: Spring AI builds its chat model inside a condition. */
	@Bean
	@ConditionalOnMissingBean
	GeminiClients retryAfterGeminiClients(ObjectProvider<RetryAfterOkHttp> okHttp,
			ObjectProvider<ModelClients> clients) {
		return new GeminiClients(okHttp::getObject, clients.getIfAvailable());
	}

	/** Once every singleton is built: a WARN when the application's own Client is not under the starter. */
	@Bean
	SmartInitializingSingleton retryAfterGeminiReport(ObjectProvider<Client> client, ObjectProvider<ModelClients> clients) {
		return () -> {
			ModelClients found = clients.getIfAvailable();
			boolean wrapped = found != null && found.all()
				.stream()
				.anyMatch((c) -> c.provider().equals(GeminiClients.PROVIDER) && c.httpClients() > 0);
			if (client.getIfAvailable() != null && !wrapped) {
				logger.warn("Spring AI's Google GenAI models send through a com.google.genai.Client bean of the"
						+ " application's own, which retry-after is not under: its SDK retries on its own (5 attempts,"
						+ " no Retry-After, no RetryInfo). Build it with GeminiClients.apply(Client.builder()...) to"
						+ " make retry-after its one retry layer");
			}
		};
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(GoogleGenAiConnectionProperties.class)
	@ConditionalOnProperty(name = "spring.ai.model.chat", havingValue = "google-genai", matchIfMissing = true)
	@Conditional(ConnectionConfigured.class)
	static class ChatClientConfiguration {

		/**
		 * Spring AI's Client, built from the same properties with the same checks as Spring AI's own bean (which
		 * backs off for it), through {@link GeminiClients}. The properties are bound here from the environment, not
		 * taken as Spring AI's bean: that bean exists only while Spring AI's auto-configuration runs, and declaring
		 * it here too would let Spring AI's cached-content condition, which builds the chat model while
		 * configuration is parsed, create it before it is bound.
		 */
		@Bean
		@ConditionalOnMissingBean(Client.class)
		Client googleGenAiClient(Environment environment, GeminiClients gemini) throws IOException {
			GoogleGenAiConnectionProperties properties = Binder.get(environment)
				.bindOrCreate(GoogleGenAiConnectionProperties.CONFIG_PREFIX, GoogleGenAiConnectionProperties.class);
			Client.Builder builder = Client.builder();
			boolean vertexConfig = StringUtils.hasText(properties.getProjectId())
					&& StringUtils.hasText(properties.getLocation());
			if (properties.isVertexAi() || (!StringUtils.hasText(properties.getApiKey()) && vertexConfig)) {
				if (!vertexConfig) {
					throw new IllegalStateException(
							"Vertex AI mode requires both 'project-id' and 'location' to be configured.");
				}
				builder.project(properties.getProjectId()).location(properties.getLocation()).vertexAI(true);
				if (properties.getCredentialsUri() != null) {
					try (var in = properties.getCredentialsUri().getInputStream()) {
						builder.credentials(GoogleCredentials.fromStream(in));
					}
				}
			}
			else if (StringUtils.hasText(properties.getApiKey())) {
				builder.apiKey(properties.getApiKey());
			}
			else {
				throw new IllegalStateException("Incomplete Google GenAI configuration: Provide 'api-key' for Gemini API"
						+ " or 'project-id' and 'location' for Vertex AI.");
			}
			return gemini.apply(builder).build();
		}

	}

	/**
	 * Matches when Spring AI's Gemini connection is configured (an API key, or a project and a location for Vertex
	 * AI). Otherwise the starter builds no Client: Spring AI's own bean, if its auto-configuration runs, fails with
	 * its own message, exactly as without the starter, and an application that left Spring AI's Gemini
	 * auto-configuration out starts as it did.
	 */
	static final class ConnectionConfigured extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			Environment environment = context.getEnvironment();
			String prefix = GoogleGenAiConnectionProperties.CONFIG_PREFIX + ".";
			boolean apiKey = StringUtils.hasText(environment.getProperty(prefix + "api-key"));
			boolean vertex = StringUtils.hasText(environment.getProperty(prefix + "project-id"))
					&& StringUtils.hasText(environment.getProperty(prefix + "location"));
			boolean vertexAsked = environment.getProperty(prefix + "vertex-ai", Boolean.class, false);
			return (apiKey || vertex || vertexAsked)
					? ConditionOutcome.match("Spring AI's Google GenAI connection is configured")
					: ConditionOutcome.noMatch("no spring.ai.google.genai api-key, nor project-id and location");
		}

	}

}
