package io.github.retryafter.boot.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

import com.sun.net.httpserver.HttpServer;

/**
 * A loopback HTTP server that answers each request with what a function of it says (status, header fields, body), and
 * records every request it saw (method, path, body, when it arrived on the monotonic clock), so a test asserts what a
 * model server saw.
 */
public final class ScriptedServer implements AutoCloseable {

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(16);

	private final List<Seen> seen = new CopyOnWriteArrayList<>();

	public ScriptedServer(Function<Seen, Answer> answers) {
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		this.server.setExecutor(this.executor);
		this.server.createContext("/", (exchange) -> {
			long at = System.nanoTime();
			String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
			Seen request = new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), body, at);
			this.seen.add(request);
			Answer answer = answers.apply(request);
			byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
			answer.fields().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.sendResponseHeaders(answer.status(), (bytes.length == 0) ? -1 : bytes.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(bytes);
			}
		});
		this.server.start();
	}

	/** The base URL, {@code http://127.0.0.1:port}. */
	public String baseUrl() {
		return "http://" + this.server.getAddress().getAddress().getHostAddress() + ":"
				+ this.server.getAddress().getPort();
	}

	/** Every request seen, in arrival order. */
	public List<Seen> seen() {
		return List.copyOf(this.seen);
	}

	/** A loopback base URL nothing listens on (a port bound, then released). */
	public static String refusingBaseUrl() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return "http://127.0.0.1:" + socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	/**
	 * One request the server saw.
	 *
	 * @param method its method
	 * @param path its path
	 * @param body its body
	 * @param arrivedAt when it arrived, {@link System#nanoTime()}
	 */
	public record Seen(String method, String path, String body, long arrivedAt) {
	}

	/**
	 * One answer.
	 *
	 * @param status the status code
	 * @param fields header fields
	 * @param body the body
	 */
	public record Answer(int status, Map<String, String> fields, String body) {

		public static Answer of(int status, String body, String... fields) {
			Map<String, String> map = new java.util.LinkedHashMap<>();
			for (int i = 0; i + 1 < fields.length; i += 2) {
				map.put(fields[i], fields[i + 1]);
			}
			return new Answer(status, map, body);
		}

	}

}
