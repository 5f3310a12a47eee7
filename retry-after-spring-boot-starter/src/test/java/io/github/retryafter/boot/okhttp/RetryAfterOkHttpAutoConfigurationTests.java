package io.github.retryafter.boot.okhttp;

import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.retryafter.Sleeper;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.autoconfigure.RetryAfterAutoConfiguration;
import io.github.retryafter.boot.autoconfigure.RetryAfterOkHttpAutoConfiguration;
import io.github.retryafter.okhttp.RetryAfterInterceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The OkHttp auto-configuration: one interceptor over the starter's providers, added to every
 * {@code OkHttpClient.Builder} bean, once; backing off for a user's bean, without OkHttp, and when switched off.
 */
class RetryAfterOkHttpAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RetryAfterAutoConfiguration.class,
				RetryAfterOkHttpAutoConfiguration.class))
		.withPropertyValues("retry.after.providers.openai.hosts=api.openai.com");

	@Test
	void everyOkHttpClientBuilderBeanGetsTheInterceptorOverTheStartersProviders() {
		this.contextRunner.withBean("one", OkHttpClient.Builder.class, OkHttpClient.Builder::new)
			.withBean("two", OkHttpClient.Builder.class, OkHttpClient.Builder::new)
			.run((context) -> {
				RetryAfterOkHttp okHttp = context.getBean(RetryAfterOkHttp.class);
				assertThat(context.getBean("one", OkHttpClient.Builder.class).interceptors())
					.containsExactly(okHttp.interceptor());
				assertThat(context.getBean("two", OkHttpClient.Builder.class).build().interceptors())
					.containsExactly(okHttp.interceptor());
			});
	}

	@Test
	void aBuilderTheApplicationMakesItselfIsWrappedOnceWhateverHowOftenItIsApplied() {
		this.contextRunner.run((context) -> {
			RetryAfterOkHttp okHttp = context.getBean(RetryAfterOkHttp.class);
			OkHttpClient.Builder builder = okHttp.apply(okHttp.apply(new OkHttpClient.Builder()));
			okHttp.apply(builder, "openai");
			assertThat(builder.interceptors()).containsExactly(okHttp.interceptor());
		});
	}

	@Test
	void aPinnedClientNamesItsProviderBeforeTheRetryInterceptor() {
		this.contextRunner.run((context) -> {
			RetryAfterOkHttp okHttp = context.getBean(RetryAfterOkHttp.class);
			OkHttpClient.Builder builder = okHttp.apply(new OkHttpClient.Builder(), "openai");
			assertThat(builder.interceptors()).hasSize(2).last().isSameAs(okHttp.interceptor());
			Interceptor pin = builder.interceptors().get(0);
			assertThat(pin).isInstanceOfSatisfying(ProviderPin.class,
					(providerPin) -> assertThat(providerPin.provider()).isEqualTo("openai"));
			assertThat(okHttp.interceptors("openai").get(0)).isSameAs(pin);
		});
	}

	@Test
	void pinningToAProviderNobodyConfiguredSaysWhatToConfigure() {
		this.contextRunner.run((context) -> assertThatIllegalArgumentException()
			.isThrownBy(() -> context.getBean(RetryAfterOkHttp.class).interceptors("anthropic"))
			.withMessage("no provider 'anthropic' is configured; did you mean 'openai'? Configure "
					+ "retry.after.providers.anthropic.* or pin the client to one of [default, openai]"));
	}

	@Test
	void applyingAMisspeltProviderSaysWhichConfiguredOneIsNearest() {
		this.contextRunner.withPropertyValues("retry.after.providers.weather.hosts=api.weather.example")
			.run((context) -> assertThatIllegalArgumentException()
				.isThrownBy(() -> context.getBean(RetryAfterOkHttp.class).apply(new OkHttpClient.Builder(), "wether"))
				.withMessageStartingWith("no provider 'wether' is configured; did you mean 'weather'?")
				.withMessageEndingWith("[default, openai, weather]"));
	}

	@Test
	void backsOffWhenTheUserDefinesTheirOwn() {
		this.contextRunner.withUserConfiguration(OwnOkHttp.class)
			.withBean(OkHttpClient.Builder.class, OkHttpClient.Builder::new)
			.run((context) -> {
				assertThat(context).hasSingleBean(RetryAfterOkHttp.class).doesNotHaveBean("retryAfterOkHttp");
				assertThat(context.getBean(OkHttpClient.Builder.class).interceptors())
					.containsExactly(context.getBean(RetryAfterOkHttp.class).interceptor());
			});
	}

	@Test
	void backsOffWithoutOkHttp() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(OkHttpClient.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RetryAfterOkHttp.class));
	}

	@Test
	void backsOffWhenSwitchedOffAndLeavesBuildersAsTheyAre() {
		this.contextRunner.withPropertyValues("retry.after.ok-http.enabled=false")
			.withBean(OkHttpClient.Builder.class, OkHttpClient.Builder::new)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RetryAfterOkHttp.class);
				assertThat(context.getBean(OkHttpClient.Builder.class).interceptors()).isEmpty();
			});
		this.contextRunner.withPropertyValues("retry.after.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RetryAfterOkHttp.class));
	}

	@Test
	void theInterceptorRefusesToBeStackedAsANetworkInterceptorToo() {
		this.contextRunner.run((context) -> {
			RetryAfterOkHttp okHttp = context.getBean(RetryAfterOkHttp.class);
			OkHttpClient.Builder builder = new OkHttpClient.Builder().addNetworkInterceptor(okHttp.interceptor());
			assertThat(okHttp.apply(builder).interceptors()).isEmpty();
			assertThat(builder.networkInterceptors()).singleElement().isInstanceOf(RetryAfterInterceptor.class);
		});
	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class OwnOkHttp {

		@org.springframework.context.annotation.Bean
		RetryAfterOkHttp ownRetryAfterOkHttp(RetryAfterProviders providers) {
			return new RetryAfterOkHttp(providers, Sleeper.system());
		}

	}

}
