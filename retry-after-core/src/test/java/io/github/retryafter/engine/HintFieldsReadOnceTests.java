package io.github.retryafter.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.github.retryafter.HeaderSource;
import io.github.retryafter.pacing.PacingSettings;
import io.github.retryafter.test.ScriptedRandom;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28: a response is read once. Each hint field of a retried response is read from its header source once, however
 * many parts (the gate's feed, the operation's planner, the rate-limit reader) look at it.
 */
class HintFieldsReadOnceTests {

	/** Every field a decision reads: the hint, its frame, its age, and the three rate-limit families. */
	static final List<String> HINT_FIELDS = List.of("Retry-After", "Date", "Age", "RateLimit", "RateLimit-Policy",
			"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Limit", "X-RateLimit-Remaining",
			"X-RateLimit-Reset");

	private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
		.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private final Sim sim = new Sim();

	@Test
	void eachHintFieldOfARetriedResponseIsReadOnceThroughARetriedOperation() {
		RetryPolicy policy = RetryPolicy.DEFAULTS.toBuilder().pacing(PacingSettings.DEFAULTS).build();
		RetryEngine engine = this.sim.engine(policy, ScriptedRandom.of(0.5, 0.5, 0.5));
		long now = this.sim.clock.instant().getEpochSecond();
		List<CountingHeaders> responses = new ArrayList<>();
		responses.add(new CountingHeaders(503, Map.of("Date", date(now), "Retry-After", date(now + 3), "Age", "1",
				"X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "5", "X-RateLimit-Reset",
				String.valueOf(now + 30))));
		responses.add(new CountingHeaders(200, Map.of("Date", date(now + 3))));
		List<CountingHeaders> sent = new ArrayList<>();
		RetryRunner.Result<CountingHeaders> result = this.sim.runner(engine)
			.run(OperationSpec.of("GET"), CountingHeaders.ADAPTER, (context) -> {
				CountingHeaders response = responses.get(sent.size());
				sent.add(response);
				return response;
			});

		assertThat(result.outcome()).isEqualTo(Outcome.SUCCESS);
		assertThat(result.attempts()).isEqualTo(2);
		assertThat(this.sim.clock.sleeps()).singleElement()
			.satisfies((wait) -> assertThat(wait).isGreaterThanOrEqualTo(Duration.ofSeconds(2)));
		Map<String, Integer> retried = sent.get(0).reads();
		assertThat(retried).as("reads of the retried response %s", retried).containsOnlyKeys(HINT_FIELDS)
			.allSatisfy((field, reads) -> assertThat(reads).as(field).isOne());
		Map<String, Integer> last = sent.get(1).reads();
		assertThat(last).as("reads of the successful response %s", last)
			.allSatisfy((field, reads) -> assertThat(reads).as(field).isOne());
	}

	private static String date(long epochSecond) {
		return HTTP_DATE.format(Instant.ofEpochSecond(epochSecond));
	}

	/** A response whose header source counts the reads of each field, by the name as spelled in the hint list. */
	record CountingHeaders(int status, Map<String, List<String>> fields, Map<String, Integer> counts)
			implements HeaderSource {

		static final RetryRunner.ResponseAdapter<CountingHeaders> ADAPTER = new RetryRunner.ResponseAdapter<>() {

			@Override
			public int status(CountingHeaders response) {
				return response.status();
			}

			@Override
			public HeaderSource headers(CountingHeaders response) {
				return response;
			}

		};

		CountingHeaders(int status, Map<String, String> fields) {
			this(status, caseInsensitive(fields), new LinkedHashMap<>());
		}

		@Override
		public synchronized List<String> values(String name) {
			String key = HINT_FIELDS.stream().filter(name::equalsIgnoreCase).findFirst().orElse(name);
			this.counts.merge(key, 1, Integer::sum);
			return this.fields.getOrDefault(name, List.of());
		}

		synchronized Map<String, Integer> reads() {
			return new TreeMap<>(this.counts);
		}

		private static Map<String, List<String>> caseInsensitive(Map<String, String> fields) {
			Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
			fields.forEach((name, value) -> map.put(name, List.of(value)));
			return map;
		}

	}

}
