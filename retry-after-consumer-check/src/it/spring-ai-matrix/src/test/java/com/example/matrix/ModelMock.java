package com.example.matrix;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A loopback server that answers like one model family's API: a completion when its policy lets the request through
 * (after a delay, if the policy says so), else the refusal its policy returns, in the family's own error format.
 * Every request is recorded on the server's clock ({@link System#nanoTime()}) with the call it belongs to (the
 * {@code call-N} its prompt names); a request that arrives before the instant an earlier refusal of the same call
 * named is counted as early.
 */
final class ModelMock implements AutoCloseable {

	private static final Pattern CALL = Pattern.compile("call-\\d+");

	private final Family family;

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(96);

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	private final Map<String, Long> notBefore = new ConcurrentHashMap<>();

	private final List<String> early = new CopyOnWriteArrayList<>();

	private volatile Function<Seen, Answer> policy = (request) -> Answer.OK;

	ModelMock(Family family) throws IOException {
		this.family = family;
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
		this.server.createContext("/", this::handle);
		this.server.setExecutor(this.executor);
		this.server.start();
	}

	String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + this.family.basePath;
	}

	/** Forgets every request seen and answers from now on as {@code policy} says. */
	void answering(Function<Seen, Answer> policy) {
		this.seen.clear();
		this.notBefore.clear();
		this.early.clear();
		this.policy = policy;
	}

	List<Seen> seen() {
		return List.copyOf(this.seen);
	}

	int early() {
		return this.early.size();
	}

	private void handle(HttpExchange exchange) throws IOException {
		long arrived = System.nanoTime();
		String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
		Matcher call = CALL.matcher(body);
		Seen request = new Seen(exchange.getRequestURI().getPath(), call.find() ? call.group() : "none", arrived);
		this.seen.add(request);
		Long named = this.notBefore.get(request.call());
		if (named != null && arrived - named < 0) {
			this.early.add(request.call() + " arrived " + (named - arrived) / 1_000_000 + " ms early");
		}
		Answer answer = this.policy.apply(request);
		if (answer.status() != 200) {
			if (answer.retryAfterSeconds() > 0) {
				this.notBefore.merge(request.call(), arrived + TimeUnit.SECONDS.toNanos(answer.retryAfterSeconds()),
						Math::max);
				if (this.family != Family.GEMINI) {
					exchange.getResponseHeaders().add("retry-after", Long.toString(answer.retryAfterSeconds()));
				}
			}
			send(exchange, answer.status(), this.family.refusal(answer.status(), answer.retryAfterSeconds()));
			return;
		}
		if (answer.delayMillis() > 0) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(answer.delayMillis()));
		}
		send(exchange, 200, this.family.completion(request.call()));
	}

	private static void send(HttpExchange exchange, int status, String json) throws IOException {
		byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().add("Content-Type", "application/json");
		exchange.sendResponseHeaders(status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	/**
	 * One request as the server saw it.
	 * @param path its path
	 * @param call the call it belongs to ({@code call-N} in its prompt)
	 * @param arrivedNanos when it arrived, on {@link System#nanoTime()}
	 */
	record Seen(String path, String call, long arrivedNanos) {
	}

	/**
	 * What the server answers: {@code 200} after {@code delayMillis}, or a refusal with {@code status} naming a wait
	 * of {@code retryAfterSeconds} (0: none): in {@code retry-after}, and for Gemini in its body's
	 * {@code google.rpc.RetryInfo} instead.
	 */
	record Answer(int status, long retryAfterSeconds, long delayMillis) {

		static final Answer OK = new Answer(200, 0, 0);

		static Answer refuse(int status, long retryAfterSeconds) {
			return new Answer(status, retryAfterSeconds, 0);
		}

		static Answer slow(long delayMillis) {
			return new Answer(200, 0, delayMillis);
		}

	}

	/** A model family: where its API is, how it answers and refuses, and which status it refuses with. */
	enum Family {

		OPENAI("/v1", "openai", 503, "org.springframework.ai.openai.OpenAiChatModel") {
			@Override
			String completion(String call) {
				return "{\"id\":\"chatcmpl-" + call + "\",\"object\":\"chat.completion\",\"created\":1764800000,"
						+ "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
						+ "\"content\":\"answer to " + call + "\",\"refusal\":null,\"annotations\":[]},\"logprobs\":null,"
						+ "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,"
						+ "\"total_tokens\":7}}";
			}

			@Override
			String refusal(int status, long seconds) {
				return "{\"error\":{\"message\":\"refused\",\"type\":\"requests\",\"param\":null,"
						+ "\"code\":\"rate_limit_exceeded\"}}";
			}
		},

		ANTHROPIC("", "anthropic", 529, "org.springframework.ai.anthropic.AnthropicChatModel") {
			@Override
			String completion(String call) {
				return "{\"id\":\"msg_" + call + "\",\"type\":\"message\",\"role\":\"assistant\","
						+ "\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\",\"text\":\"answer to " + call
						+ "\",\"citations\":null}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
						+ "\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}";
			}

			@Override
			String refusal(int status, long seconds) {
				return "{\"type\":\"error\",\"error\":{\"type\":\"" + ((status == 529) ? "overloaded_error"
						: "rate_limit_error") + "\",\"message\":\"refused\"}}";
			}
		},

		OLLAMA("", "ollama", 503, "org.springframework.ai.ollama.OllamaChatModel") {
			@Override
			String completion(String call) {
				return "{\"model\":\"llama3.2\",\"created_at\":\"2026-12-07T10:00:00Z\",\"message\":{\"role\":"
						+ "\"assistant\",\"content\":\"answer to " + call + "\"},\"done_reason\":\"stop\","
						+ "\"done\":true,\"total_duration\":1000,\"prompt_eval_count\":3,\"eval_count\":4}";
			}

			@Override
			String refusal(int status, long seconds) {
				return "{\"error\":\"server busy, please try again. maximum pending requests exceeded\"}";
			}
		},

		GEMINI("", "gemini", 429, "org.springframework.ai.google.genai.GoogleGenAiChatModel") {
			@Override
			String completion(String call) {
				return "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"answer to " + call + "\"}],"
						+ "\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":"
						+ "{\"promptTokenCount\":3,\"candidatesTokenCount\":4,\"totalTokenCount\":7},"
						+ "\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"" + call + "\"}";
			}

			@Override
			String refusal(int status, long seconds) {
				String retryInfo = (seconds > 0) ? ",{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\","
						+ "\"retryDelay\":\"" + seconds + "s\"}" : "";
				String state = (status == 429) ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE";
				return "{\"error\":{\"code\":" + status + ",\"message\":\"refused\",\"status\":\"" + state + "\","
						+ "\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":"
						+ "[{\"quotaMetric\":\"generativelanguage.googleapis.com/generate_content_requests\","
						+ "\"quotaId\":\"GenerateRequestsPerMinutePerProjectPerModel\"}]}" + retryInfo + "]}}";
			}
		};

		final String basePath;

		final String provider;

		final int outageStatus;

		final String modelClass;

		Family(String basePath, String provider, int outageStatus, String modelClass) {
			this.basePath = basePath;
			this.provider = provider;
			this.outageStatus = outageStatus;
			this.modelClass = modelClass;
		}

		abstract String completion(String call);

		abstract String refusal(int status, long seconds);

	}

}
