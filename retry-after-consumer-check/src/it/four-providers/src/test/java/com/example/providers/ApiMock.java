package com.example.providers;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A loopback API that answers each request as its {@link Script} says, given how many requests of the same call came
 * before (a call is named by its path, and by the {@code call-N} its body names, if any). It records when each request
 * arrived and when its answer was written, on {@link System#nanoTime()} (the clock the app's engine measures its
 * waits on), and the header fields of the last response exactly as sent, with the {@code Date} the JDK's server
 * stamped on it.
 */
final class ApiMock implements AutoCloseable {

	private static final Pattern CALL = Pattern.compile("call-\\d+");

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(4);

	private final Script script;

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	private volatile Map<String, String> lastSent = Map.of();

	private final Map<Integer, Long> answered = new ConcurrentHashMap<>();

	ApiMock(Script script) throws IOException {
		this.script = script;
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
		this.server.createContext("/", this::handle);
		this.server.setExecutor(this.executor);
		this.server.start();
	}

	int port() {
		return this.server.getAddress().getPort();
	}

	/** Every request, in arrival order. */
	List<Seen> seen() {
		return List.copyOf(this.seen);
	}

	/**
	 * The gaps between consecutive attempts of each call, as this server saw them: from its answer to one attempt
	 * (written whole) to the arrival of the next, and from arrival to arrival.
	 */
	List<Gap> gaps() {
		Map<String, List<Integer>> calls = new LinkedHashMap<>();
		for (int i = 0; i < this.seen.size(); i++) {
			calls.computeIfAbsent(this.seen.get(i).call(), (call) -> new ArrayList<>()).add(i);
		}
		List<Gap> gaps = new ArrayList<>();
		calls.values().forEach((requests) -> {
			for (int i = 1; i < requests.size(); i++) {
				long arrived = this.seen.get(requests.get(i)).arrivedNanos();
				gaps.add(new Gap(arrived - this.answered.get(requests.get(i - 1)),
						arrived - this.seen.get(requests.get(i - 1)).arrivedNanos()));
			}
		});
		return gaps;
	}

	/** The header fields of the last response, as sent (names in lower case, the {@code Date} included). */
	Map<String, String> lastSent() {
		return this.lastSent;
	}

	private void handle(HttpExchange exchange) throws IOException {
		long arrived = System.nanoTime();
		String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
		Matcher named = CALL.matcher(body);
		String call = exchange.getRequestURI().getPath() + (named.find() ? " " + named.group() : "");
		int before;
		int index;
		synchronized (this.seen) {
			before = (int) this.seen.stream().filter((request) -> request.call().equals(call)).count();
			index = this.seen.size();
			this.seen.add(new Seen(exchange.getRequestMethod(), call, arrived));
		}
		Reply reply = this.script.reply(call, before, ZonedDateTime.now(ZoneOffset.UTC).toEpochSecond());
		reply.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		byte[] json = reply.body().getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(reply.status(), json.length);
		Map<String, String> sent = new LinkedHashMap<>();
		exchange.getResponseHeaders().forEach((name, values) -> sent.put(name.toLowerCase(Locale.ROOT), values.get(0)));
		this.lastSent = sent;
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(json);
		}
		this.answered.put(index, System.nanoTime());
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	/** Seconds from a response's {@code Date} to an instant it named, as epoch seconds. */
	static double secondsAfterDate(Map<String, String> sent, long epochSeconds) {
		return epochSeconds - ZonedDateTime.parse(sent.get("date"), DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond();
	}

	/**
	 * What the API answers.
	 */
	@FunctionalInterface
	interface Script {

		/**
		 * Returns the answer to a request.
		 * @param call the request's call: its path, then the {@code call-N} its body names, if any
		 * @param before how many requests of the same call came before it
		 * @param nowEpochSeconds the server's wall clock, in whole seconds (what its {@code Date} will say, unless a
		 * second begins meanwhile)
		 * @return the answer
		 */
		Reply reply(String call, int before, long nowEpochSeconds);

	}

	/**
	 * An answer.
	 * @param status its status
	 * @param headers its header fields
	 * @param body its JSON body
	 */
	record Reply(int status, Map<String, String> headers, String body) {
	}

	/**
	 * The time between two attempts of one call, as the server saw it.
	 * @param afterAnswerNanos from the end of its answer to the first attempt to the arrival of the second: the
	 * time no attempt of the call was at the server
	 * @param betweenArrivalsNanos from the arrival of the first to the arrival of the second
	 */
	record Gap(long afterAnswerNanos, long betweenArrivalsNanos) {
	}

	/**
	 * A request as the server saw it.
	 * @param method its method
	 * @param call its call: its path, then the {@code call-N} its body names, if any
	 * @param arrivedNanos when it arrived, on {@link System#nanoTime()}
	 */
	record Seen(String method, String call, long arrivedNanos) {
	}

}
