package com.example.models;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.example.models.ModelApiMock.Refusal;
import com.example.models.ModelApiMock.Seen;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Issue 29's acceptance, as a new user meets it: a Spring AI app (OpenAI and Anthropic chat models, Spring AI 2.0.1 on
 * Boot 4.0.7) with retry-after's starter added and nothing configured, against loopback mocks of both APIs. The SDKs'
 * own retries are off, so the servers see exactly the attempts the starter's meters count.
 */
@ExtendWith(OutputCaptureExtension.class)
class ModelCallsTests {

	private ModelApiMock openAi;

	private ModelApiMock anthropic;

	private final ExecutorService callers = Executors.newFixedThreadPool(50);

	@BeforeEach
	void startMocks() throws Exception {
		this.openAi = ModelApiMock.openAi();
		this.anthropic = ModelApiMock.anthropic();
	}

	@AfterEach
	void stopMocks() {
		this.callers.shutdownNow();
		this.openAi.close();
		this.anthropic.close();
	}

	@Test
	void theStartersMetersCountEveryAttemptAndTheSdksSendNoneOfTheirOwn(CapturedOutput output) {
		this.openAi.answering((request) -> first(request) ? Refusal.of(429, 1) : null);
		this.anthropic.answering((request) -> first(request) ? Refusal.of(529, 1) : null);
		try (ConfigurableApplicationContext context = start()) {
			assertThat(context.getBean(OpenAiChatModel.class).call("call-1")).isEqualTo("answer to call-1");
			assertThat(context.getBean(AnthropicChatModel.class).call("call-2")).isEqualTo("answer to call-2");

			List<Seen> openAi = this.openAi.seen("call-1");
			assertThat(openAi).extracting(Seen::method).containsExactly("POST", "POST");
			assertThat(openAi.get(1).body()).as("the same body sent again").isEqualTo(openAi.get(0).body());
			assertThat(openAi).extracting(Seen::retryCount).as("the starter's count, not the SDK's 0").containsExactly("0", "1");
			assertThat(this.anthropic.seen("call-2")).extracting(Seen::retryCount).containsExactly("0", "1");
			assertThat(attempts(context, "openai")).isEqualTo(2);
			assertThat(attempts(context, "anthropic")).isEqualTo(2);
			assertThat(output).contains("retry-after is the retry layer under Spring AI's model clients: openai (")
				.contains("SDK retries 0 from spring.ai.openai.max-retries")
				.contains("SDK retries 0 from spring.ai.anthropic.max-retries")
				.doesNotContain("two retry layers are stacked");
		}
	}

	@Test
	void aThreeSecondOutageWithRetryAfterTwoGivesTwentyOfTwentyAndNoAttemptBeforeTheNamedInstant() throws Exception {
		AtomicLong outageEnds = new AtomicLong();
		this.openAi.answering((request) -> {
			outageEnds.compareAndSet(0, request.arrivedNanos() + TimeUnit.SECONDS.toNanos(3));
			return (request.arrivedNanos() - outageEnds.get() < 0) ? Refusal.of(503, 2) : null;
		});
		try (ConfigurableApplicationContext context = start()) {
			OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
			List<String> answers = all(20, (call) -> model.call(call));

			assertThat(answers).hasSize(20).allSatisfy((answer) -> assertThat(answer).startsWith("answer to call-"));
			assertThat(this.openAi.earlyArrivals()).as("attempts before the instant a refusal named").isEmpty();
			assertThat(attempts(context, "openai")).isEqualTo(this.openAi.seen().size());
		}
	}

	@Test
	void aPersistentRefusalGivesAtMostMaxAttemptsRequestsPerCall() throws Exception {
		this.openAi.answering((request) -> Refusal.of(429, 1));
		this.anthropic.answering((request) -> Refusal.of(529, 1));
		try (ConfigurableApplicationContext context = start("--retry.after.max-attempts=3")) {
			Future<?> openAi = this.callers.submit(() -> context.getBean(OpenAiChatModel.class).call("call-1"));
			Future<?> anthropic = this.callers.submit(() -> context.getBean(AnthropicChatModel.class).call("call-2"));

			assertThatException().isThrownBy(() -> openAi.get(30, TimeUnit.SECONDS));
			assertThatException().isThrownBy(() -> anthropic.get(30, TimeUnit.SECONDS));
			assertThat(this.openAi.seen("call-1")).as("one layer: not (3 SDK retries + 1) × 3").hasSize(3);
			assertThat(this.anthropic.seen("call-2")).hasSize(3);
			assertThat(this.openAi.earlyArrivals()).isEmpty();
		}
	}

	/**
	 * The mock announces its quota as OpenAI does, in its request window on every answer
	 * ({@code x-ratelimit-limit-requests}, {@code -remaining-requests}, {@code -reset-requests} as a Go duration),
	 * which the {@code openai} profile the starter gives provider {@code openai} reads. Without any field the adaptive
	 * rate starts from its guess and some calls spend their four attempts before it settles (with
	 * {@code max-attempts=10}: all 50 in 10.0 s, 169 requests).
	 */
	@Test
	void fiftyCallsAgainstFiveRequestsASecondAllSucceedWithinOnePointThreeTimesTheIdealTenSeconds() throws Exception {
		TokenBucket limit = new TokenBucket(5, 5);
		this.openAi.answering((request) -> limit.take(request.arrivedNanos()) ? null : Refusal.of(429, 1))
			.announcing(limit::fields);
		try (ConfigurableApplicationContext context = start()) {
			OpenAiChatModel model = context.getBean(OpenAiChatModel.class);
			List<String> answers = all(50, (call) -> model.call(call));

			List<Seen> seen = this.openAi.seen();
			long first = seen.get(0).arrivedNanos();
			long last = seen.get(seen.size() - 1).arrivedNanos();
			Duration elapsed = Duration.ofNanos(last - first);
			System.out.printf("50 calls at 5/s: %d requests, last success after %d ms (ideal 10 s)%n", seen.size(),
					elapsed.toMillis());
			assertThat(answers).hasSize(50);
			assertThat(elapsed).isLessThanOrEqualTo(Duration.ofMillis(13_000));
			assertThat(this.openAi.earlyArrivals()).isEmpty();
		}
	}

	@Test
	void a429WithARetryAfterDateInThePastIsRetriedNotACrash() {
		this.openAi.answering((request) -> first(request)
				? new Refusal(429, null, Instant.now().minusSeconds(10)) : null);
		try (ConfigurableApplicationContext context = start()) {
			assertThat(context.getBean(OpenAiChatModel.class).call("call-1")).isEqualTo("answer to call-1");
			assertThat(this.openAi.seen("call-1")).hasSize(2);
		}
	}

	private boolean first(Seen request) {
		ModelApiMock mock = request.path().endsWith("/messages") ? this.anthropic : this.openAi;
		return mock.seen(request.call()).size() == 1;
	}

	private ConfigurableApplicationContext start(String... args) {
		List<String> all = new ArrayList<>(List.of("--spring.ai.openai.base-url=" + this.openAi.baseUrl(),
				"--spring.ai.anthropic.base-url=" + this.anthropic.baseUrl()));
		all.addAll(List.of(args));
		return new SpringApplicationBuilder(ModelsApplication.class).web(WebApplicationType.NONE)
			.run(all.toArray(String[]::new));
	}

	/** Runs {@code count} calls at once, {@code call-0} to {@code call-(count-1)}, and returns their answers. */
	private List<String> all(int count, ThrowingCall call) throws Exception {
		List<Future<String>> futures = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			String name = "call-" + i;
			futures.add(this.callers.submit((Callable<String>) () -> call.call(name)));
		}
		List<String> answers = new ArrayList<>();
		for (Future<String> future : futures) {
			answers.add(future.get(60, TimeUnit.SECONDS));
		}
		return answers;
	}

	private static double attempts(ConfigurableApplicationContext context, String provider) {
		return context.getBean(MeterRegistry.class)
			.find("retry.after.attempts")
			.tag("provider", provider)
			.functionCounters()
			.stream()
			.mapToDouble(FunctionCounter::count)
			.sum();
	}

	@FunctionalInterface
	interface ThrowingCall {

		String call(String name) throws Exception;

	}

	/** The API's rate limit, on the server's clock: {@code perSecond} requests a second, {@code burst} at once. */
	static final class TokenBucket {

		private final double perSecond;

		private final double burst;

		private double tokens;

		private long at = Long.MIN_VALUE;

		TokenBucket(double perSecond, double burst) {
			this.perSecond = perSecond;
			this.burst = burst;
			this.tokens = burst;
		}

		synchronized Map<String, String> fields() {
			long remaining = (long) Math.floor(this.tokens);
			long resetMillis = (long) Math.ceil((this.burst - this.tokens) / this.perSecond * 1000);
			return Map.of("x-ratelimit-limit-requests", Long.toString((long) this.burst),
					"x-ratelimit-remaining-requests", Long.toString(remaining), "x-ratelimit-reset-requests",
					resetMillis + "ms");
		}

		synchronized boolean take(long nowNanos) {
			if (this.at != Long.MIN_VALUE) {
				this.tokens = Math.min(this.burst, this.tokens + (nowNanos - this.at) / 1e9 * this.perSecond);
			}
			this.at = nowNanos;
			if (this.tokens >= 1) {
				this.tokens -= 1;
				return true;
			}
			return false;
		}

	}

}
