package io.github.retryafter.request;

import java.net.URI;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.github.retryafter.engine.RetryEngine;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A provider a request names must be a configured one; one that is not is refused with the configured name nearest
 * it, so a typo in code reads as the typo it is.
 */
class ProviderRoutesTests {

	private static final RetryEngine ENGINE = RetryEngine.builder().policy(RetryPolicy.DEFAULTS).build();

	private final ProviderRoutes<ProviderRoute.Simple> routes = ProviderRoutes.of(
			ProviderRoute.of("weather", ENGINE, "api.weather.example"), ProviderRoute.of("default", ENGINE),
			ProviderRoute.of("stripe", ENGINE, "api.stripe.com"));

	@Test
	void aNamedProviderThatIsConfiguredIsUsedWhateverTheHost() {
		assertThat(this.routes.resolve(URI.create("https://api.stripe.com/v1"), Optional.of("weather")).name())
			.isEqualTo("weather");
	}

	@Test
	void aNamedProviderThatIsNotConfiguredNamesTheNearestConfiguredOneAndListsThemAll() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.routes.resolve(URI.create("https://api.stripe.com/v1"), Optional.of("strpe")))
			.withMessage("request names retry-after provider 'strpe', which is not configured under "
					+ "retry.after.providers; did you mean 'stripe'? Configured providers: [default, stripe, weather]");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.routes.resolve(URI.create("https://elsewhere.example/"), Optional.of("Wether")))
			.withMessageContaining("did you mean 'weather'?");
	}

}
