package io.github.retryafter.boot.fleet.redis;

import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.web.client.RestClient;

import io.github.retryafter.boot.actuate.RetryAfterEndpoint;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterEndpointAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterFleetAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterRestClientAutoConfiguration;
import io.github.retryafter.boot.fleet.UnsharedHosts;
import io.github.retryafter.boot.testing.FlakyProvider;
import io.github.retryafter.boot.testing.FlakyProvider.Reply;
import io.github.retryafter.boot.testing.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Boot instance with the fleet store on Redis calls a loopback host that no provider names: the startup says what
 * the fleet shares, the first call to the host warns once, and the endpoint lists the host as not shared (issue 31,
 * item 3). Without a fleet store none of it happens.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnsharedHostsLoopbackTests {

	@RegisterExtension
	static final RedisServer redis = new RedisServer();

	private static final AtomicInteger fleets = new AtomicInteger();

	private static final String STARTUP = "The fleet store (redis) shares the retry budget and cooldown of providers "
			+ "payments [api.pay.example, *.pay.example]; calls to any other host use the 'default' provider and keep "
			+ "their budget and cooldown per instance (to share a host's, list it under "
			+ "retry.after.providers.<name>.hosts)";

	private final FlakyProvider provider = new FlakyProvider().script("/ok", Reply.ok());

	private final String host = URI.create(this.provider.baseUrl()).getHost();

	private final ApplicationContextRunner instance = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				RetryAfterFleetAutoConfiguration.class, RetryAfterAutoConfiguration.class,
				RetryAfterRestClientAutoConfiguration.class, HttpClientAutoConfiguration.class,
				ImperativeHttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
				RetryAfterEndpointAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"retry.after.fleet.key-prefix=unshared-" + fleets.incrementAndGet(),
				"retry.after.fleet.command-timeout=1s", "management.endpoints.web.exposure.include=retryafter",
				"retry.after.providers.payments.hosts=api.pay.example,*.pay.example");

	@AfterEach
	void stopProvider() {
		this.provider.close();
	}

	@Test
	void withTheFleetOnTheStartupSaysWhatIsSharedAndAnUnnamedHostIsWarnedOnceAndListed(CapturedOutput output) {
		this.instance.withPropertyValues("retry.after.fleet.store=redis").run((context) -> {
			assertThat(output).contains(STARTUP);
			assertThat(output).doesNotContain("Calls to host");
			RestClient client = client(context, this.provider.baseUrl());
			assertThat(status(client)).isEqualTo(200);
			assertThat(status(client)).isEqualTo(200);

			assertThat(occurrences(output.getOut(), "Calls to host '" + this.host + "' use the 'default' provider, "
					+ "whose retry budget and cooldown the fleet store (redis) does not share: each instance keeps its "
					+ "own. To share them, list the host under retry.after.providers.<name>.hosts"))
				.isEqualTo(1);
			assertThat(occurrences(output.getOut(), STARTUP)).isEqualTo(1);
			RetryAfterEndpoint.FleetDescriptor fleet = context.getBean(RetryAfterEndpoint.class).retryAfter().fleet();
			assertThat(fleet.unsharedHosts()).containsExactly(this.host);
			assertThat(fleet.unsharedHostsNotListed()).isZero();
			String json = JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(fleet);
			assertThat(json).contains("\"unsharedHosts\" : [ \"" + this.host + "\" ]",
					"\"unsharedHostsNotListed\" : 0");
		});
	}

	@Test
	void beyondMaxOriginsFurtherHostsAreCountedAndSaidOnceNotListed(CapturedOutput output) {
		this.instance.withPropertyValues("retry.after.fleet.store=redis", "retry.after.max-origins=1")
			.run((context) -> {
				String other = this.host.equals("127.0.0.1") ? "localhost" : "127.0.0.1";
				int port = URI.create(this.provider.baseUrl()).getPort();
				assertThat(status(client(context, this.provider.baseUrl()))).isEqualTo(200);
				assertThat(status(client(context, "http://" + other + ":" + port))).isEqualTo(200);

				RetryAfterEndpoint.FleetDescriptor fleet = context.getBean(RetryAfterEndpoint.class)
					.retryAfter()
					.fleet();
				assertThat(fleet.unsharedHosts()).containsExactly(this.host);
				assertThat(fleet.unsharedHostsNotListed()).isEqualTo(1);
				assertThat(output).doesNotContain("Calls to host '" + other + "'");
				assertThat(occurrences(output.getOut(), "More than 1 hosts outside every named provider were called; "
						+ "further ones are neither logged nor listed"))
					.isEqualTo(1);
			});
	}

	@Test
	void withDefaultSharedAsOneStateNothingIsWarnedNorListed(CapturedOutput output) {
		this.instance.withPropertyValues("retry.after.fleet.store=redis", "retry.after.providers.default.scope=provider")
			.run((context) -> {
				assertThat(status(client(context, this.provider.baseUrl()))).isEqualTo(200);

				assertThat(output).contains("calls to any other host use the 'default' provider, whose budget and "
						+ "cooldown the fleet shares too (retry.after.providers.default.scope=provider)");
				assertThat(output).doesNotContain("Calls to host");
				assertThat(context.getBean(RetryAfterEndpoint.class).retryAfter().fleet().unsharedHosts()).isEmpty();
			});
	}

	@Test
	void withTheFleetOffNothingIsLoggedNorRecorded(CapturedOutput output) {
		this.instance.run((context) -> {
			assertThat(status(client(context, this.provider.baseUrl()))).isEqualTo(200);

			assertThat(context).doesNotHaveBean(UnsharedHosts.class);
			assertThat(context.getBean(RetryAfterEndpoint.class).retryAfter().fleet()).isNull();
			assertThat(output).doesNotContain("The fleet store").doesNotContain("Calls to host");
		});
	}

	private static RestClient client(AssertableApplicationContext context, String baseUrl) {
		return context.getBean(RestClient.Builder.class).baseUrl(baseUrl).build();
	}

	private static int status(RestClient client) {
		return client.get().uri("/ok").retrieve().toBodilessEntity().getStatusCode().value();
	}

	private static int occurrences(String text, String line) {
		int count = 0;
		for (int at = text.indexOf(line); at >= 0; at = text.indexOf(line, at + line.length())) {
			count++;
		}
		return count;
	}

}
