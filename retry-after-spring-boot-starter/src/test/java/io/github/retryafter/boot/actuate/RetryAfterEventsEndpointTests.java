package io.github.retryafter.boot.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.RandomSource;
import io.github.retryafter.Ticker;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.actuate.RetryAfterEvents.Event;
import io.github.retryafter.boot.actuate.RetryAfterEvents.Type;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterEventsEndpointAutoConfiguration;
import io.github.retryafter.boot.fleet.FleetStatus;
import io.github.retryafter.boot.fleet.FleetStatusProvider;
import io.github.retryafter.boot.testing.Drive;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.test.FakeClock;

import static io.github.retryafter.boot.testing.Drive.REFUSED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code retryafterevents} endpoint over the auto-configured engines, fed by real operations on a test clock.
 */
class RetryAfterEventsEndpointTests {

	private static final Instant NOW = Instant.parse("2026-12-01T10:15:30Z");

	private final FakeClock clock = FakeClock.create();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterEventsEndpointAutoConfiguration.class))
		.withBean(Ticker.class, () -> this.clock::read)
		.withBean(InstantSource.class, () -> InstantSource.fixed(NOW))
		.withBean(RandomSource.class, () -> () -> 0.5)
		.withPropertyValues("management.endpoints.web.exposure.include=retryafterevents",
				"retry.after.max-attempts=2", "retry.after.pacing.mode=off");

	@Test
	void recordsTheEndOfACooldownWhenItsProbeIsAnswered() {
		this.contextRunner.withPropertyValues("retry.after.pacing.mode=hold").run((context) -> {
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(Drive.operation(providers, "default", this.clock, retryAfter("1"), 429, 200))
				.isEqualTo(Outcome.SUCCESS);
			List<Event> events = context.getBean(RetryAfterEventsEndpoint.class).events().events();
			assertThat(events).extracting(Event::type).containsExactly(Type.COOLDOWN_ENDED, Type.COOLDOWN);
			assertThat(events.get(0).provider()).isEqualTo("default");
			assertThat(events.get(0).outcome()).isEqualTo("OPEN");
			assertThat(events.get(0).attempts()).isEqualTo(2);
		});
	}

	@Test
	void recordsEachFallbackOfTheFleet() {
		AtomicReference<Consumer<FleetStatus>> told = new AtomicReference<>();
		FleetStatusProvider fleet = new FleetStatusProvider() {

			@Override
			public FleetStatus fleetStatus() {
				return new FleetStatus("redis", "LOCAL_FALLBACK", false, "orders", 1, Optional.of("timed out"),
						Duration.ofMillis(50), 0, 3);
			}

			@Override
			public void onFallback(Consumer<FleetStatus> listener) {
				told.set(listener);
			}

		};
		this.contextRunner.withBean(FleetStatusProvider.class, () -> fleet).run((context) -> {
			RetryAfterEventsEndpoint endpoint = context.getBean(RetryAfterEventsEndpoint.class);
			told.get().accept(fleet.fleetStatus());
			Event fallback = endpoint.events().events().get(0);
			assertThat(fallback.type()).isEqualTo(Type.FLEET_FALLBACK);
			assertThat(fallback.provider()).isEqualTo("fleet");
			assertThat(fallback.outcome()).isEqualTo("LOCAL_FALLBACK");
			assertThat(fallback.reason()).contains("redis store failed (timed out)");
		});
	}

	@Test
	void keepsFailedOperationsRefusedHintsAndCooldownsNewestFirst() {
		this.contextRunner.run((context) -> {
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			assertThat(Drive.operation(providers, "default", this.clock, 200)).isEqualTo(Outcome.SUCCESS);
			assertThat(Drive.operation(providers, "default", this.clock, REFUSED)).isEqualTo(Outcome.ATTEMPTS_EXHAUSTED);
			Drive.operation(providers, "default", this.clock, retryAfter("soon"), 503, 200);
			Drive.operation(providers, "default", this.clock, retryAfter("1"), 429, 200);
			RetryAfterEventsEndpoint.EventsDescriptor events = context.getBean(RetryAfterEventsEndpoint.class).events();
			assertThat(events.capacity()).isEqualTo(100);
			assertThat(events.recorded()).isEqualTo(3);
			assertThat(events.events()).extracting(Event::type)
				.containsExactly(Type.COOLDOWN, Type.HINT_REFUSED, Type.OPERATION_FAILED);
			Event failed = events.events().get(2);
			assertThat(failed.provider()).isEqualTo("default");
			assertThat(failed.outcome()).isEqualTo("ATTEMPTS_EXHAUSTED");
			assertThat(failed.attempts()).isEqualTo(2);
			assertThat(failed.time()).isEqualTo(NOW);
			assertThat(events.events().get(1).outcome()).isEqualTo("INVALID_DELAY");
			assertThat(events.events().get(0).outcome()).isEqualTo("STATUS_429");
		});
	}

	@Test
	void dropsTheOldestBeyondItsCapacityAndCutsLongReasons() {
		this.contextRunner.withPropertyValues("retry.after.events.capacity=2").run((context) -> {
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			String longHint = "x".repeat(5000);
			for (int i = 0; i < 5; i++) {
				Drive.operation(providers, "default", this.clock, retryAfter(longHint), 503, 200);
			}
			RetryAfterEventsEndpoint.EventsDescriptor events = context.getBean(RetryAfterEventsEndpoint.class).events();
			assertThat(events.recorded()).isEqualTo(5);
			assertThat(events.events()).hasSize(2)
				.allSatisfy((event) -> assertThat(event.reason()).hasSizeLessThanOrEqualTo(RetryAfterEvents.MAX_REASON_LENGTH));
		});
	}

	@Test
	void isNotCreatedUnlessTheEndpointIsExposed() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterEventsEndpointAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(RetryAfterEvents.class));
	}

	@Test
	void aCooldownSaysWhatTheProviderAskedForApartFromTheJitterAndASubSecondSkewAsTheDatesPrecision() {
		this.contextRunner.run((context) -> {
			RetryAfterProviders providers = context.getBean(RetryAfterProviders.class);
			Drive.operation(providers, "default", this.clock, HeaderSource.of(Map.of("Retry-After", List.of("3"),
					"Date", List.of("Tue, 01 Dec 2026 10:15:30 GMT"))), 429, 200);
			Event cooldown = context.getBean(RetryAfterEventsEndpoint.class).events().events().get(0);
			assertThat(cooldown.type()).isEqualTo(Type.COOLDOWN);
			assertThat(cooldown.reason()).isEqualTo("the provider asked to wait 3000 ms (Retry-After 3000 ms); 375 ms"
					+ " of jitter added above it, so attempt 2 waits 3375 ms; the server's clock agrees with ours within"
					+ " the Date's one-second precision");
			assertThat(cooldown.asked()).isEqualTo(new RetryAfterEvents.Asked("Retry-After", 3000, 375, 0.0, true));
		});
	}

	private static HeaderSource retryAfter(String value) {
		return HeaderSource.of(Map.of("Retry-After", List.of(value)));
	}

}
