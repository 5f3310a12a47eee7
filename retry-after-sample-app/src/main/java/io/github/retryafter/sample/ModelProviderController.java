package io.github.retryafter.sample;

import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.github.retryafter.sample.SimulatedProvider.Answer;

/**
 * The simulated provider as an OpenAI-compatible model API, under {@code /model/v1}: {@code POST /chat/completions}
 * answers as the current {@link ProviderConditions} say, like {@code /provider/resource} does, but in the shape
 * OpenAI's API uses: a chat completion on success, an {@code error} object with a refusal, the same
 * {@code Retry-After} and {@code Date} headers plus {@code retry-after-ms} on a {@code 429}, and, under a rate limit,
 * OpenAI's request window on every answer ({@code x-ratelimit-limit-requests}, {@code -remaining-requests},
 * {@code -reset-requests} as a Go duration). It records every arrival under the operation named in the prompt
 * ({@code model-<run>-<index>}, what the model scenario sends), so retries are told from first attempts without an
 * idempotency key, which the OpenAI SDK does not send.
 */
@RestController
@RequestMapping("/model/v1")
class ModelProviderController {

	/** The operation's name as the model scenario writes it into its prompt. */
	private static final Pattern OPERATION = Pattern.compile("model-\\d+-\\d+");

	private static final String COMPLETION = """
			{"id":"chatcmpl-%s","object":"chat.completion","created":%d,"model":"sample-model",\
			"choices":[{"index":0,"message":{"role":"assistant","content":"done: %s","refusal":null},\
			"logprobs":null,"finish_reason":"stop"}],\
			"usage":{"prompt_tokens":8,"completion_tokens":2,"total_tokens":10}}
			""";

	private static final String REFUSAL = """
			{"error":{"message":"%s","type":"%s","param":null,"code":"%s"}}
			""";

	private final SimulatedProvider provider;

	private final InstantSource clock;

	ModelProviderController(SimulatedProvider provider, InstantSource clock) {
		this.provider = provider;
		this.clock = clock;
	}

	@PostMapping(path = "/chat/completions", produces = MediaType.APPLICATION_JSON_VALUE)
	CompletableFuture<ResponseEntity<String>> chatCompletions(@RequestBody String body) {
		Matcher operation = OPERATION.matcher(body);
		String operationId = operation.find() ? operation.group() : null;
		Answer answer = this.provider.handle(operationId);
		if (answer.hold().isZero() || answer.hold().isNegative()) {
			return CompletableFuture.completedFuture(toResponse(answer, operationId));
		}
		Executor release = CompletableFuture.delayedExecutor(answer.hold().toNanos(), TimeUnit.NANOSECONDS);
		return CompletableFuture.supplyAsync(() -> toResponse(answer, operationId), release);
	}

	/** A duration as Go prints it for a reset under a minute: {@code 200ms}, {@code 1s}, {@code 1.5s}. */
	static String goDuration(Duration duration) {
		long millis = duration.toMillis();
		if (millis < 1000) {
			return millis + "ms";
		}
		return (millis % 1000 == 0) ? (millis / 1000) + "s"
				: java.math.BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString() + "s";
	}

	private ResponseEntity<String> toResponse(Answer answer, String operationId) {
		ResponseEntity.BodyBuilder builder = ResponseEntity.status(answer.status())
			.contentType(MediaType.APPLICATION_JSON);
		answer.headers().forEach((name, value) -> builder.header(name, value));
		if (answer.window() != null) {
			// OpenAI's request window, with its reset as a Go duration ("200ms", "1.5s")
			builder.header("x-ratelimit-limit-requests", Integer.toString(answer.window().limit()));
			builder.header("x-ratelimit-remaining-requests", Integer.toString(answer.window().remaining()));
			builder.header("x-ratelimit-reset-requests", goDuration(answer.window().reset()));
		}
		String retryAfter = answer.headers().get("Retry-After");
		if (answer.status() == 429 && retryAfter != null && retryAfter.chars().allMatch(Character::isDigit)) {
			builder.header("retry-after-ms", Long.toString(Long.parseLong(retryAfter) * 1000));
		}
		String name = (operationId != null) ? operationId : "anonymous";
		return switch (answer.status()) {
			case 200 -> builder.body(COMPLETION.formatted(name, this.clock.instant().getEpochSecond(), name));
			case 429 -> builder.body(REFUSAL.formatted("Rate limit reached for requests", "requests",
					"rate_limit_exceeded"));
			default -> builder.body(REFUSAL.formatted("The server is overloaded", "server_error", "overloaded"));
		};
	}

}
