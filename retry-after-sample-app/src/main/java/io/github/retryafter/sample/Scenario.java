package io.github.retryafter.sample;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import io.github.retryafter.sample.ProviderConditions.RetryAfterForm;

/**
 * A burst of logical operations fired at once at the simulated provider, through one client and one configured
 * retry-after provider. Immutable.
 *
 * @param name the scenario's name, as in {@code POST /scenarios/{name}}
 * @param description one sentence saying what to look for
 * @param provider the retry-after provider (under {@code retry.after.providers}) whose policy and budget apply
 * @param client the client that sends the operations
 * @param operations how many logical operations start at once
 * @param conditions how the simulated provider behaves meanwhile
 */
public record Scenario(String name, String description, String provider, Client client, int operations,
		ProviderConditions conditions) {

	/** Most operations one scenario may fire. */
	public static final int MAX_OPERATIONS = 1000;

	/**
	 * Checks the values.
	 * @throws IllegalArgumentException naming the bad value
	 */
	public Scenario {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(description, "description");
		Objects.requireNonNull(provider, "provider");
		Objects.requireNonNull(client, "client");
		Objects.requireNonNull(conditions, "conditions");
		if (operations < 1 || operations > MAX_OPERATIONS) {
			throw new IllegalArgumentException(
					"operations must be between 1 and " + MAX_OPERATIONS + " but was " + operations);
		}
	}

	private static final Duration OUTAGE = Duration.ofSeconds(1);

	private static final Duration RETRY_AFTER = Duration.ofSeconds(2);

	/** The built-in scenarios; each runs in about three seconds of real time, the model scenario in about ten. */
	public static final List<Scenario> BUILT_IN = List.of(
			new Scenario("jitter",
					"200 operations hit a 1 s outage whose gateway holds them, then answers all at once 503 Retry-After: 2; "
							+ "the default floor-plus-jitter policy spreads the retries over 3.0-3.5 s",
					"flaky", Client.WEB_CLIENT, 200,
					new ProviderConditions(OUTAGE, 503, RETRY_AFTER, RetryAfterForm.DELAY_SECONDS, Duration.ZERO, 0, true)),
			new Scenario("herd",
					"the same held outage, but hint-mode exact: every retry lands on the server's floor at once, a herd",
					"flaky-exact", Client.WEB_CLIENT, 200,
					new ProviderConditions(OUTAGE, 503, RETRY_AFTER, RetryAfterForm.DELAY_SECONDS, Duration.ZERO, 0, true)),
			new Scenario("skew",
					"50 operations through RestClient against a provider whose clock is an hour ahead, answering 503 "
							+ "with an HTTP-date Retry-After; measured against the response's Date, the wait is still 2 s",
					"flaky", Client.REST_CLIENT, 50,
					new ProviderConditions(OUTAGE, 503, RETRY_AFTER, RetryAfterForm.HTTP_DATE, Duration.ofHours(1), 0, false)),
			new Scenario("rate-limit",
					"200 operations against a 50 requests/s rate limit answering 429 Retry-After: 1; provider pacing "
							+ "holds requests through each cooldown and releases them at the rate the provider accepts, "
							+ "so nine in ten or more succeed and the small retry budget refuses only the retries "
							+ "that still fail",
					"rate-limited", Client.REST_CLIENT, 200,
					new ProviderConditions(Duration.ZERO, 429, Duration.ofSeconds(1), RetryAfterForm.DELAY_SECONDS,
							Duration.ZERO, 50, false)),
			new Scenario("model",
					"50 chat calls at once through Spring AI's ChatClient (its OpenAI model, which sends through the "
							+ "OpenAI SDK over OkHttp) against a 5 requests/s limit answering 429 Retry-After: 1; "
							+ "retry-after is the one retry layer under the SDK and paces the backlog at the rate the "
							+ "provider accepts, so all 50 succeed in about 10 s",
					"openai", Client.CHAT_CLIENT, 50,
					new ProviderConditions(Duration.ZERO, 429, Duration.ofSeconds(1), RetryAfterForm.DELAY_SECONDS,
							Duration.ZERO, 5, false)));

	/**
	 * Finds a built-in scenario.
	 * @param name its name
	 * @return the scenario, if there is one by that name
	 */
	public static Optional<Scenario> named(String name) {
		return BUILT_IN.stream().filter((scenario) -> scenario.name().equals(name)).findFirst();
	}

	/**
	 * Returns this scenario with another number of operations.
	 * @param operations the number
	 * @return a new scenario
	 */
	public Scenario withOperations(int operations) {
		return new Scenario(this.name, this.description, this.provider, this.client, operations, this.conditions);
	}

	/**
	 * Returns this scenario sent through another client. The chat client is the model scenario's own: its calls go
	 * to the model API under provider {@code openai}, so no scenario switches to it or away from it.
	 * @param client the client
	 * @return a new scenario
	 * @throws IllegalArgumentException if either this scenario's client or {@code client} is the chat client and the
	 * two differ
	 */
	public Scenario withClient(Client client) {
		if (client != this.client && (client == Client.CHAT_CLIENT || this.client == Client.CHAT_CLIENT)) {
			throw new IllegalArgumentException("scenario '" + this.name + "' runs through " + this.client.displayName()
					+ " and cannot be switched to " + client.displayName()
					+ ": the chat client calls the model API under provider 'openai', the others the resource");
		}
		return new Scenario(this.name, this.description, this.provider, client, this.operations, this.conditions);
	}

	/**
	 * Returns this scenario with the provider's clock off by {@code skew}.
	 * @param skew the skew
	 * @return a new scenario
	 */
	public Scenario withClockSkew(Duration skew) {
		return new Scenario(this.name, this.description, this.provider, this.client, this.operations,
				this.conditions.withClockSkew(skew));
	}

	/**
	 * The client a scenario sends its operations through; the first two are built from Spring Boot's builders, the
	 * chat client is Spring AI's, and all three carry retry-after.
	 */
	public enum Client {

		/** {@code WebClient}: every operation in flight at once on the event loop. */
		WEB_CLIENT("WebClient"),

		/** {@code RestClient}: one blocking thread per operation. */
		REST_CLIENT("RestClient"),

		/**
		 * Spring AI's {@code ChatClient} on its OpenAI model, one blocking thread per operation: the OpenAI SDK sends
		 * over OkHttp, under which the starter puts retry-after.
		 */
		CHAT_CLIENT("Spring AI ChatClient");

		private final String displayName;

		Client(String displayName) {
			this.displayName = displayName;
		}

		/**
		 * Returns the client's class name, as shown in summaries.
		 * @return the name
		 */
		public String displayName() {
			return this.displayName;
		}

		/**
		 * Parses {@code webclient}, {@code web-client}, {@code restclient}, {@code rest-client}, {@code chatclient} or
		 * {@code chat-client}, in any case.
		 * @param value the value
		 * @return the client
		 * @throws IllegalArgumentException if it names neither
		 */
		public static Client parse(String value) {
			String normalized = value.trim().toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
			return switch (normalized) {
				case "webclient" -> WEB_CLIENT;
				case "restclient" -> REST_CLIENT;
				case "chatclient" -> CHAT_CLIENT;
				default -> throw new IllegalArgumentException(
						"client must be webclient, restclient or chatclient but was " + value);
			};
		}

	}

}
