package com.example.models;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A loopback server that answers like OpenAI's chat completions API ({@code POST .../chat/completions}) or Anthropic's
 * messages API ({@code POST .../messages}): a JSON completion when its policy lets the request through, else the
 * refusal its policy returns. Every request is recorded on the server's clock ({@link System#nanoTime()}), with the
 * call it belongs to (the {@code call-N} its prompt names), its body and its {@code x-stainless-retry-count}.
 */
final class ModelApiMock implements AutoCloseable {

	private static final Pattern CALL = Pattern.compile("call-\\d+");

	static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
		.withZone(ZoneOffset.UTC);

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(64);

	private final boolean anthropic;

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	private final Map<String, Long> notBefore = new ConcurrentHashMap<>();

	private final List<String> early = new CopyOnWriteArrayList<>();

	private volatile Function<Seen, Refusal> policy = (request) -> null;

	private volatile java.util.function.Supplier<Map<String, String>> fields = Map::of;

	/** Adds {@code fields} (as they are when each request is answered) to every response. */
	ModelApiMock announcing(java.util.function.Supplier<Map<String, String>> fields) {
		this.fields = fields;
		return this;
	}

	private ModelApiMock(boolean anthropic) throws IOException {
		this.anthropic = anthropic;
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
		this.server.createContext("/", this::handle);
		this.server.setExecutor(this.executor);
		this.server.start();
	}

	static ModelApiMock openAi() throws IOException {
		return new ModelApiMock(false);
	}

	static ModelApiMock anthropic() throws IOException {
		return new ModelApiMock(true);
	}

	/** The base URL to configure: OpenAI's includes {@code /v1}, as its SDK expects. */
	String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + (this.anthropic ? "" : "/v1");
	}

	/** Answers each request as {@code policy} says: a refusal, or {@code null} for a completion. */
	ModelApiMock answering(Function<Seen, Refusal> policy) {
		this.policy = policy;
		return this;
	}

	List<Seen> seen() {
		return List.copyOf(this.seen);
	}

	List<Seen> seen(String call) {
		return this.seen.stream().filter((request) -> request.call().equals(call)).toList();
	}

	/** Requests that arrived before the instant a refusal of the same call named, with by how much. */
	List<String> earlyArrivals() {
		return List.copyOf(this.early);
	}

	private void handle(HttpExchange exchange) throws IOException {
		long arrived = System.nanoTime();
		String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
		Matcher call = CALL.matcher(body);
		Seen request = new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
				call.find() ? call.group() : "none", body,
				exchange.getRequestHeaders().getFirst("x-stainless-retry-count"), arrived);
		this.seen.add(request);
		Long named = this.notBefore.get(request.call());
		if (named != null && arrived - named < 0) {
			this.early.add(request.call() + " arrived " + (named - arrived) / 1_000_000 + " ms early");
		}
		Refusal refusal = this.policy.apply(request);
		this.fields.get().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
		if (refusal != null) {
			refuse(exchange, request, refusal);
			return;
		}
		byte[] json = (this.anthropic ? message(request.call()) : completion(request.call()))
			.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().add("Content-Type", "application/json");
		exchange.sendResponseHeaders(200, json.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(json);
		}
	}

	private void refuse(HttpExchange exchange, Seen request, Refusal refusal) throws IOException {
		if (refusal.retryAfterSeconds() != null) {
			exchange.getResponseHeaders().add("retry-after", Integer.toString(refusal.retryAfterSeconds()));
			this.notBefore.merge(request.call(), System.nanoTime() + refusal.retryAfterSeconds() * 1_000_000_000L,
					Math::max);
		}
		if (refusal.retryAfterDate() != null) {
			exchange.getResponseHeaders().add("retry-after", HTTP_DATE.format(refusal.retryAfterDate()));
		}
		byte[] json = (this.anthropic
				? "{\"type\":\"error\",\"error\":{\"type\":\"" + (refusal.status() == 529 ? "overloaded_error"
						: "rate_limit_error") + "\",\"message\":\"refused\"}}"
				: "{\"error\":{\"message\":\"refused\",\"type\":\"requests\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}")
			.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().add("Content-Type", "application/json");
		exchange.sendResponseHeaders(refusal.status(), json.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(json);
		}
	}

	private static String completion(String call) {
		return "{\"id\":\"chatcmpl-" + call + "\",\"object\":\"chat.completion\",\"created\":1764800000,"
				+ "\"model\":\"gpt-4o-mini\",\"system_fingerprint\":null,\"service_tier\":null,\"choices\":[{\"index\":0,"
				+ "\"message\":{\"role\":\"assistant\",\"content\":\"answer to " + call + "\",\"refusal\":null,"
				+ "\"annotations\":[]},\"logprobs\":null,\"finish_reason\":\"stop\"}],"
				+ "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}";
	}

	private static String message(String call) {
		return "{\"id\":\"msg_" + call + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
				+ "\"content\":[{\"type\":\"text\",\"text\":\"answer to " + call + "\",\"citations\":null}],"
				+ "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"container\":null,\"usage\":{\"input_tokens\":3,"
				+ "\"output_tokens\":4,\"cache_creation_input_tokens\":null,\"cache_read_input_tokens\":null,"
				+ "\"cache_creation\":null,\"server_tool_use\":null,\"service_tier\":null}}";
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	/**
	 * One request as the server saw it.
	 * @param method its method
	 * @param path its path
	 * @param call the call it belongs to ({@code call-N} in its prompt)
	 * @param body its body
	 * @param retryCount its {@code x-stainless-retry-count}, or {@code null}
	 * @param arrivedNanos when it arrived, on {@link System#nanoTime()}
	 */
	record Seen(String method, String path, String call, String body, String retryCount, long arrivedNanos) {
	}

	/**
	 * A refusal: its status and its {@code retry-after}, as delay-seconds or as a date.
	 * @param status the status
	 * @param retryAfterSeconds delay-seconds, or {@code null}
	 * @param retryAfterDate an HTTP-date, or {@code null}
	 */
	record Refusal(int status, Integer retryAfterSeconds, Instant retryAfterDate) {

		static Refusal of(int status, int retryAfterSeconds) {
			return new Refusal(status, retryAfterSeconds, null);
		}

	}

}
