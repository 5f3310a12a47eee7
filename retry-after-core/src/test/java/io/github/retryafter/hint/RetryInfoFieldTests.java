package io.github.retryafter.hint;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.retryafter.BodySource;
import io.github.retryafter.HeaderSource;
import io.github.retryafter.HintField;
import io.github.retryafter.HintFields;
import io.github.retryafter.JitterMode;
import io.github.retryafter.PlanRequest;
import io.github.retryafter.PlanSource;
import io.github.retryafter.PlannerOptions;
import io.github.retryafter.RetryAfterError;
import io.github.retryafter.RetryAfterException;
import io.github.retryafter.RetryPlan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Google's {@code google.rpc.RetryInfo} in a refusal's JSON body: a bounded, strict read, a wait only from the one
 * place Google puts it, a typed refusal for everything else, and the planner's choice beside {@code Retry-After}.
 */
class RetryInfoFieldTests {

	private static final HintFields GEMINI = HintFields.of(HintField.RETRY_AFTER, HintField.GOOGLE_RETRY_INFO);

	static String geminiRefusal(String retryDelay) {
		return GeminiBodies.refusal(retryDelay);
	}

	private static long parse(String body) {
		return RetryInfoField.parse(body.getBytes(StandardCharsets.UTF_8), BodySource.MAX_BYTES);
	}

	private static RetryAfterException refusal(String body) {
		return catchThrowableOfType(RetryAfterException.class, () -> parse(body));
	}

	private static String details(String... details) {
		return "{\"error\": {\"code\": 429, \"details\": [" + String.join(", ", details) + "]}}";
	}

	private static String retryInfo(String delayJson) {
		return "{\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": " + delayJson + "}";
	}

	@ParameterizedTest
	@CsvSource({ "27s, 27000", "3.700s, 3700", "0s, 0", "0.000000001s, 1", "1.5s, 1500", "52758s, 52758000",
			"999999999999.999999999s, 1000000000000000", "0.9999s, 1000" })
	void aProtobufDurationIsAWaitRoundedUpToTheMillisecond(String delay, long millis) {
		assertThat(parse(geminiRefusal(delay))).isEqualTo(millis);
	}

	@ParameterizedTest
	@ValueSource(strings = { "27", "-1s", "+1s", "1e3s", "1.s", ".5s", "1.5", "27ms", "1m", "27S", " 27s", "27s ",
			"1.0000000001s", "1234567890123s", "99999999999999999999999s", "\\u00b2s", "٣s", "" })
	void anythingElseInRetryDelayIsRefusedAsAnInvalidDelay(String delay) {
		RetryAfterException ex = refusal(details(retryInfo("\"" + delay + "\"")));
		assertThat(ex.code()).isEqualTo(RetryAfterError.INVALID_DELAY);
		assertThat(ex.getMessage()).contains("google.rpc.RetryInfo retryDelay", "protobuf duration");
	}

	@ParameterizedTest
	@ValueSource(strings = { "27", "27.5", "null", "true", "{\"seconds\": 27}", "[\"27s\"]" })
	void aRetryDelayThatIsNotAStringIsRefused(String delay) {
		assertThat(refusal(details(retryInfo(delay))).code()).isEqualTo(RetryAfterError.INVALID_DELAY);
	}

	@Test
	void anEscapedDelayIsTheStringItSpells() {
		assertThat(parse(details(retryInfo("\"27\\u0073\"")))).isEqualTo(27_000);
		assertThat(parse(details("{\"@type\": \"type.googleapis.com\\/google.rpc.RetryInfo\", \"retry\\u0044elay\":"
				+ " \"2s\"}"))).isEqualTo(2_000);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "   ", "Too Many Requests", "<html><body>429</body></html>", "{}", "[]",
			"{\"error\": {\"code\": 429, \"message\": \"Resource exhausted\", \"status\": \"RESOURCE_EXHAUSTED\"}}",
			"{\"error\": {\"details\": []}}",
			"{\"error\": {\"details\": [{\"@type\": \"type.googleapis.com/google.rpc.QuotaFailure\"}]}}",
			"{\"error\": {\"message\": \"set retryDelay to 27s or see google.rpc.RetryInfo\"}}",
			"{\"error\": {\"message\": \"{\\\"retryDelay\\\": \\\"27s\\\"}\"}}", "{\"retryDelays\": \"27s\"}" })
	void aBodyThatNamesNoRetryInfoIsAbsentNotRefused(String body) {
		assertThat(parse(body)).isEqualTo(-1);
	}

	@Test
	void aRetryInfoOutsideErrorDetailsIsRefusedNeverAWait() {
		for (String body : List.of("{\"details\": [" + retryInfo("\"27s\"") + "]}",
				"{\"error\": " + retryInfo("\"27s\"") + "}", "{\"error\": {\"detail\": [" + retryInfo("\"27s\"") + "]}}",
				details("{\"@type\": \"type.googleapis.com/google.rpc.ErrorInfo\", \"metadata\": "
						+ retryInfo("\"27s\"") + "}"),
				details("[" + retryInfo("\"27s\"") + "]"),
				details("{\"@type\": \"type.googleapis.com/google.rpc.QuotaFailure\", \"retryDelay\": \"27s\"}"),
				"{\"retryDelay\": \"27s\"}", "{\"data\": {\"error\": {\"details\": [" + retryInfo("\"27s\"") + "]}}}")) {
			RetryAfterException ex = refusal(body);
			assertThat(ex.code()).as(body).isEqualTo(RetryAfterError.MALFORMED_BODY);
			assertThat(ex.getMessage()).as(body).contains("error.details[]");
		}
	}

	@Test
	void aRetryInfoWithoutRetryDelayIsRefused() {
		RetryAfterException ex = refusal(details("{\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\"}"));
		assertThat(ex.code()).isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(ex.getMessage()).contains("no retryDelay");
	}

	@Test
	void twoRetryInfosOrTwoDelaysOrTwoTypesAreRefusedAsMultipleValues() {
		assertThat(refusal(details(retryInfo("\"1s\""), retryInfo("\"1s\""))).code())
			.isEqualTo(RetryAfterError.MULTIPLE_VALUES);
		assertThat(refusal(details("{\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"1s\","
				+ " \"retryDelay\": \"60s\"}")).code()).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
		assertThat(refusal(details("{\"@type\": \"type.googleapis.com/google.rpc.QuotaFailure\", \"@type\":"
				+ " \"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"1s\"}")).code())
			.isEqualTo(RetryAfterError.MULTIPLE_VALUES);
		String twoErrors = "{\"error\": {\"details\": [" + retryInfo("\"1s\"") + "]}, \"error\": {\"details\": ["
				+ retryInfo("\"9s\"") + "]}}";
		assertThat(refusal(twoErrors).code()).isEqualTo(RetryAfterError.MULTIPLE_VALUES);
	}

	@Test
	void aTypeThatOnlyResemblesRetryInfoIsNotOne() {
		for (String type : List.of("google.rpc.RetryInfo", "type.googleapis.com/google.rpc.retryinfo",
				"type.googleapis.com/google.rpc.RetryInfo ", "type.googleapis.com/google.rpc.RetryInfoX")) {
			String body = details("{\"@type\": \"" + type + "\", \"retryDelay\": \"1s\"}");
			assertThat(refusal(body).code()).as(type).isEqualTo(RetryAfterError.MALFORMED_BODY);
		}
	}

	@Test
	void aBodyCutAtTheBoundIsRefusedAsTruncatedAndAShorterBrokenOneAsMalformed() {
		String body = geminiRefusal("27s");
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		int cut = body.indexOf("\"retryDelay\"") + 5;
		byte[] prefix = java.util.Arrays.copyOf(bytes, cut);
		assertThat(catchThrowableOfType(RetryAfterException.class, () -> RetryInfoField.parse(prefix, cut)).code())
			.isEqualTo(RetryAfterError.BODY_TRUNCATED);
		assertThat(catchThrowableOfType(RetryAfterException.class, () -> RetryInfoField.parse(prefix, cut + 100))
			.code()).isEqualTo(RetryAfterError.MALFORMED_BODY);
	}

	@Test
	void aBodyLongerThanSixteenKibibytesIsReadOnlyToTheBound() {
		String padding = "x".repeat(BodySource.MAX_BYTES);
		byte[] body = ("{\"error\": {\"details\": [" + retryInfo("\"2s\"") + "], \"message\": \"" + padding + "\"}}")
			.getBytes(StandardCharsets.UTF_8);
		AtomicInteger asked = new AtomicInteger();
		BodySource source = (max) -> {
			asked.set(max);
			return java.util.Arrays.copyOf(body, Math.min(max, body.length));
		};
		assertThat(catchThrowableOfType(RetryAfterException.class, () -> RetryInfoField.read(source)).code())
			.isEqualTo(RetryAfterError.BODY_TRUNCATED);
		assertThat(asked.get()).isEqualTo(BodySource.MAX_BYTES);
		byte[] tooMuch = new byte[BodySource.MAX_BYTES * 2];
		java.util.Arrays.fill(tooMuch, (byte) ' ');
		assertThat(RetryInfoField.read((max) -> tooMuch)).isEqualTo(-1);
	}

	@Test
	void hostileBodiesAreRefusedOrAbsentAndNeverThrowAnythingElse() {
		String deep = "[".repeat(10_000);
		assertThat(refusalOrAbsent("{\"error\": " + deep)).isIn(RetryAfterError.MALFORMED_BODY, null);
		assertThat(refusalOrAbsent("{\"retryDelay\": " + deep)).isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(refusalOrAbsent("{\"error\": {\"details\": [" + retryInfo("\"1s\"") + "]}} trailing"))
			.isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(refusalOrAbsent(details(retryInfo("\"1s\"")).replace(", ", " , \u0001")))
			.isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(refusalOrAbsent("{\"retryDelay\": \"\\x\"}")).isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(refusalOrAbsent("{\"retryDelay\": \"\\u12\"}")).isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(refusalOrAbsent("{\"retryDelay\": 1e999999999}")).isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(refusalOrAbsent("\u00ef\u00bb\u00bf" + details(retryInfo("\"1s\""))))
			.isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(refusalOrAbsent(details(retryInfo("\"1s\"")).replace("RetryInfo", "RetryInfo\u00e9")))
			.isEqualTo(RetryAfterError.MALFORMED_BODY);
	}

	private static RetryAfterError refusalOrAbsent(String body) {
		try {
			return (parse(body) < 0) ? null : fail(body);
		}
		catch (RetryAfterException ex) {
			return ex.code();
		}
	}

	private static RetryAfterError fail(String body) {
		throw new AssertionError("a wait was read from " + body);
	}

	@Test
	void anUnreadableBodyIsRefusedAsMalformed() {
		RetryAfterException ex = catchThrowableOfType(RetryAfterException.class,
				() -> RetryInfoField.read((max) -> { throw new java.io.IOException("stream reset"); }));
		assertThat(ex.code()).isEqualTo(RetryAfterError.MALFORMED_BODY);
		assertThat(ex.getMessage()).contains("could not be read");
	}

	// the planner: the body's wait beside Retry-After, read only when the field set names it

	private static RetryAfterPlanner planner(HintFields fields, Duration maxWait) {
		return RetryAfterPlanner.builder()
			.options(PlannerOptions.builder().jitter(JitterMode.NONE).fields(fields).maxWait(maxWait).build())
			.ticker(() -> 0)
			.wallClock(() -> Instant.parse("2026-09-08T12:00:00Z"))
			.build();
	}

	private static ResponseHints hints(String body, String... retryAfter) {
		return ResponseHints.of(HeaderSource.of((retryAfter.length == 0) ? Map.of()
				: Map.of("Retry-After", List.of(retryAfter))), BodySource.of(body.getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void theBodysRetryInfoIsAPlanWhenTheFieldsReadIt() {
		RetryPlan plan = planner(GEMINI, Duration.ofSeconds(60)).plan(hints(geminiRefusal("3.700s")), PlanRequest.forAttempt(1))
			.orElseThrow();
		assertThat(plan.floor()).isEqualTo(Duration.ofMillis(3700));
		assertThat(plan.source()).isEqualTo(PlanSource.RETRY_INFO);
		assertThat(plan.source().field()).isEqualTo(HintField.GOOGLE_RETRY_INFO);
	}

	@Test
	void theBodyIsReadOnlyWhenTheFieldsNameItAndThenOnce() {
		AtomicInteger reads = new AtomicInteger();
		ResponseHints hints = ResponseHints.of(HeaderSource.empty(), (max) -> {
			reads.incrementAndGet();
			return geminiRefusal("27s").getBytes(StandardCharsets.UTF_8);
		});
		assertThat(planner(HintFields.STANDARD, null).plan(hints, PlanRequest.forAttempt(1))).isEmpty();
		assertThat(reads).hasValue(0);
		assertThat(hints.hasWaitField(HintFields.ALL)).isTrue();
		assertThat(hints.hasWaitField(GEMINI)).isTrue();
		assertThat(reads).hasValue(1);
	}

	@Test
	void theLaterOfRetryAfterAndRetryInfoWinsAndTheOtherIsReported() {
		RetryPlan plan = planner(GEMINI, null).plan(hints(geminiRefusal("2s"), "5"), PlanRequest.forAttempt(1)).orElseThrow();
		assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(5));
		assertThat(plan.source()).isEqualTo(PlanSource.DELAY_SECONDS);
		assertThat(plan.passedOver()).containsExactly(new RetryPlan.PassedOver(HintField.GOOGLE_RETRY_INFO,
				Optional.of(Duration.ofSeconds(2)), Optional.empty()));
		RetryPlan later = planner(GEMINI, null).plan(hints(geminiRefusal("27s"), "1"), PlanRequest.forAttempt(1))
			.orElseThrow();
		assertThat(later.floor()).isEqualTo(Duration.ofSeconds(27));
		assertThat(later.source()).isEqualTo(PlanSource.RETRY_INFO);
	}

	@Test
	void aRefusedRetryInfoIsPassedOverForAUsableRetryAfter() {
		RetryPlan plan = planner(GEMINI, null).plan(hints(details(retryInfo("\"-1s\"")), "2"), PlanRequest.forAttempt(1))
			.orElseThrow();
		assertThat(plan.floor()).isEqualTo(Duration.ofSeconds(2));
		assertThat(plan.passedOver()).containsExactly(new RetryPlan.PassedOver(HintField.GOOGLE_RETRY_INFO,
				Optional.empty(), Optional.of(RetryAfterError.INVALID_DELAY)));
	}

	@Test
	void aDailyQuotaIsBeyondTheMaxWaitAndRefusedAsTooLongNeverShortened() {
		RetryAfterException ex = catchThrowableOfType(RetryAfterException.class, () -> planner(GEMINI,
				Duration.ofSeconds(30)).plan(hints(geminiRefusal("52758s")), PlanRequest.forAttempt(1)));
		assertThat(ex.code()).isEqualTo(RetryAfterError.TOO_LONG);
		assertThat(ex.getMessage()).contains("google.rpc.RetryInfo's retryDelay (52758000 ms)", "maxWait is 30000 ms");
	}

}
