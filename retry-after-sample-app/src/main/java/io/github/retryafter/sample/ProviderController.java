package io.github.retryafter.sample;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.retryafter.sample.ProviderConditions.RetryAfterForm;
import io.github.retryafter.sample.SimulatedProvider.Answer;

/**
 * The simulated provider's HTTP face, under {@code /provider}:
 * <ul>
 * <li>{@code GET|POST /provider/resource}: the stateful resource the scenarios call, answering as the current
 * {@link ProviderConditions} say and recording every arrival by its {@code Idempotency-Key}; an answer held until
 * the outage ends is sent asynchronously, so held requests do not occupy server threads;</li>
 * <li>{@code GET /provider/status/{code}?retry-after=2&form=http-date&skew=3600}: a stateless answer with the given
 * status, {@code Retry-After} in the given form and a {@code Date} off by {@code skew} seconds, for exploring by
 * hand.</li>
 * </ul>
 */
@RestController
@RequestMapping("/provider")
class ProviderController {

	private final SimulatedProvider provider;

	ProviderController(SimulatedProvider provider) {
		this.provider = provider;
	}

	@RequestMapping(path = "/resource", method = { RequestMethod.GET, RequestMethod.POST })
	CompletableFuture<ResponseEntity<String>> resource(
			@RequestHeader(name = "Idempotency-Key", required = false) String operationId) {
		Answer answer = this.provider.handle(operationId);
		if (answer.hold().isZero() || answer.hold().isNegative()) {
			return CompletableFuture.completedFuture(toResponse(answer));
		}
		Executor release = CompletableFuture.delayedExecutor(answer.hold().toNanos(), TimeUnit.NANOSECONDS);
		return CompletableFuture.supplyAsync(() -> toResponse(answer), release);
	}

	@GetMapping("/status/{code}")
	ResponseEntity<String> status(@PathVariable int code,
			@RequestParam(name = "retry-after", required = false) Long retryAfterSeconds,
			@RequestParam(defaultValue = "delay-seconds") String form, @RequestParam(defaultValue = "0") long skew) {
		if (code < 200 || code > 599) {
			return ResponseEntity.badRequest().body("status must be between 200 and 599 but was " + code + "\n");
		}
		if (retryAfterSeconds != null && retryAfterSeconds < 0) {
			return ResponseEntity.badRequest().body("retry-after must not be negative but was " + retryAfterSeconds + "\n");
		}
		RetryAfterForm parsed;
		try {
			parsed = RetryAfterForm.valueOf(form.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
		}
		catch (IllegalArgumentException ex) {
			return ResponseEntity.badRequest().body("form must be delay-seconds or http-date but was " + form + "\n");
		}
		Duration retryAfter = (retryAfterSeconds != null) ? Duration.ofSeconds(retryAfterSeconds) : null;
		return toResponse(this.provider.answer(code, retryAfter, parsed, Duration.ofSeconds(skew)));
	}

	private static ResponseEntity<String> toResponse(Answer answer) {
		ResponseEntity.BodyBuilder builder = ResponseEntity.status(answer.status());
		answer.headers().forEach((name, value) -> builder.header(name, value));
		return builder.body(answer.status() + "\n");
	}

}
