package io.github.retryafter.boot.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;

/**
 * A loopback Gemini API: answers every request from a script (the last answer repeats), a refusal with Google's
 * error JSON ({@code RESOURCE_EXHAUSTED}, a {@code QuotaFailure} and, when given, a {@code RetryInfo}), a success
 * with a one-candidate {@code GenerateContentResponse}; records when each request arrived, on the real clock.
 */
public final class GeminiServer implements AutoCloseable {

	/** The text every successful answer carries. */
	public static final String ANSWER = "pong";

	private final MockWebServer server = new MockWebServer();

	private final Deque<MockResponse> script = new ArrayDeque<>();

	private MockResponse last;

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	public GeminiServer() {
		this.server.setDispatcher(new Dispatcher() {
			@Override
			public MockResponse dispatch(RecordedRequest request) {
				GeminiServer.this.seen.add(new Seen(System.nanoTime(), request));
				return next();
			}
		});
		try {
			this.server.start(InetAddress.getLoopbackAddress(), 0);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Answers the next requests with these, in order; the last repeats. */
	public synchronized GeminiServer script(MockResponse... answers) {
		this.script.clear();
		this.script.addAll(List.of(answers));
		return this;
	}

	private synchronized MockResponse next() {
		MockResponse answer = this.script.poll();
		if (answer != null) {
			this.last = answer;
		}
		return (this.last != null) ? this.last : ok();
	}

	/** The base URL, for {@code Client.setDefaultBaseUrls} or {@code HttpOptions.baseUrl}. */
	public String baseUrl() {
		return this.server.url("/").toString();
	}

	/** Every request, in order, with when it arrived. */
	public List<Seen> seen() {
		return List.copyOf(this.seen);
	}

	/** A success, as generateContent answers. */
	public static MockResponse ok() {
		return new MockResponse.Builder().code(200)
			.setHeader("Content-Type", "application/json; charset=UTF-8")
			.body("{\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"" + ANSWER + "\"}], \"role\": \"model\"},"
					+ " \"finishReason\": \"STOP\", \"index\": 0}], \"usageMetadata\": {\"promptTokenCount\": 1,"
					+ " \"candidatesTokenCount\": 1, \"totalTokenCount\": 2}, \"modelVersion\": \"gemini-2.0-flash\"}")
			.build();
	}

	/** A {@code 429 RESOURCE_EXHAUSTED} whose body carries {@code retryDelay}, or no RetryInfo when it is null. */
	public static MockResponse refusal(String retryDelay, String... fields) {
		MockResponse.Builder response = new MockResponse.Builder().code(429)
			.setHeader("Content-Type", "application/json; charset=UTF-8")
			.body(refusalBody(retryDelay));
		for (int i = 0; i + 1 < fields.length; i += 2) {
			response.addHeader(fields[i], fields[i + 1]);
		}
		return response.build();
	}

	/** Google's error JSON for a refused generateContent. */
	public static String refusalBody(String retryDelay) {
		String retryInfo = (retryDelay != null) ? ", {\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\","
				+ " \"retryDelay\": \"" + retryDelay + "\"}" : "";
		return "{\"error\": {\"code\": 429, \"message\": \"You exceeded your current quota, please check your plan"
				+ " and billing details.\", \"status\": \"RESOURCE_EXHAUSTED\", \"details\": [{\"@type\":"
				+ " \"type.googleapis.com/google.rpc.QuotaFailure\", \"violations\": [{\"quotaMetric\":"
				+ " \"generativelanguage.googleapis.com/generate_content_free_tier_requests\", \"quotaId\":"
				+ " \"GenerateRequestsPerDayPerProjectPerModel-FreeTier\", \"quotaValue\": \"200\"}]}" + retryInfo
				+ "]}}";
	}

	/** A {@code 503 UNAVAILABLE}: the model is overloaded. */
	public static MockResponse unavailable() {
		return new MockResponse.Builder().code(503)
			.setHeader("Content-Type", "application/json; charset=UTF-8")
			.body("{\"error\": {\"code\": 503, \"message\": \"The model is overloaded. Please try again later.\","
					+ " \"status\": \"UNAVAILABLE\"}}")
			.build();
	}

	@Override
	public void close() {
		this.server.close();
	}

	/**
	 * One request as the server saw it.
	 *
	 * @param arrivedAt when it arrived, as a {@code nanoTime}
	 * @param request the request
	 */
	public record Seen(long arrivedAt, RecordedRequest request) {
	}

}
