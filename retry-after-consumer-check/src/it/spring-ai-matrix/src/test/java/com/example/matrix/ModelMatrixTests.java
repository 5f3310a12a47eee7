package com.example.matrix;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.example.matrix.ModelMock.Answer;
import com.example.matrix.ModelMock.Family;
import com.example.matrix.ModelMock.Seen;
import com.google.genai.Client;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same five scenarios against each model family's mock, run by this app's build twice: with retry-after's starter
 * on the classpath and on its defaults, and without it ({@code matrix.side}). Each scenario writes one row per family
 * of what the mock saw and what the callers got; {@code verify.groovy} compares the two runs (success with the
 * starter at least as high as without, the same exception types, at most {@code max-attempts} requests per call, no
 * request before a refusal's instant, the starter's meters equal to what the mock saw).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ModelMatrixTests {

	private static final String SIDE = System.getProperty("matrix.side", "with");

	private static final Map<Family, ModelMock> mocks = new EnumMap<>(Family.class);

	private static final List<String> rows = new ArrayList<>();

	private static final ExecutorService callers = Executors.newFixedThreadPool(256);

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() throws IOException {
		for (Family family : Family.values()) {
			mocks.put(family, new ModelMock(family));
		}
		context = start((family) -> mocks.get(family).baseUrl());
	}

	@AfterAll
	static void stop() throws IOException {
		context.close();
		mocks.values().forEach(ModelMock::close);
		callers.shutdownNow();
		Path file = Path.of("target", "matrix", SIDE + ".tsv");
		Files.createDirectories(file.getParent());
		Files.write(file, rows, StandardCharsets.UTF_8);
		rows.forEach(System.out::println);
	}

	/** A 2 s outage: every request refused with the family's overload status and a 1 s hint, then answered. */
	@Test
	@Order(1)
	void aShortOutageWithAHint() throws Exception {
		scenario("outage", 5, 60, context, (family) -> {
			AtomicLong ends = new AtomicLong();
			return (request) -> {
				ends.compareAndSet(0, request.arrivedNanos() + TimeUnit.SECONDS.toNanos(2));
				return (request.arrivedNanos() - ends.get() < 0) ? Answer.refuse(family.outageStatus, 1) : Answer.OK;
			};
		});
	}

	/**
	 * A quota spent for an hour (Gemini: a daily quota's {@code 52758s}): no call can succeed in time. Last of the
	 * calls on this context: with the starter, the provider's gate then stays closed for its {@code max-cooldown}.
	 */
	@Test
	@Order(4)
	void aLongRefusal() throws Exception {
		scenario("long-refusal", 2, 20, context,
				(family) -> (request) -> Answer.refuse(429, (family == Family.GEMINI) ? 52758 : 3600));
	}

	/** A 35 s completion: a long answer or a reasoning model. */
	@Test
	@Order(2)
	void aSlowAnswer() throws Exception {
		scenario("slow-35s", 1, 60, context, (family) -> (request) -> Answer.slow(35_000));
	}

	/** 50 calls at once; the API admits 5 per sliding second and refuses the rest with {@code 429}, a 2 s hint. */
	@Test
	@Order(3)
	void aWindowedBurst() throws Exception {
		scenario("burst", 50, 90, context, (family) -> {
			SlidingWindow window = new SlidingWindow(5, TimeUnit.SECONDS.toNanos(1));
			return (request) -> window.admit(request.arrivedNanos()) ? Answer.OK : Answer.refuse(429, 2);
		});
	}

	/** Nothing listens where the API should be. */
	@Test
	@Order(5)
	void aRefusedConnection() throws Exception {
		Map<Family, String> nowhere = new EnumMap<>(Family.class);
		for (Family family : Family.values()) {
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
				nowhere.put(family, "http://127.0.0.1:" + socket.getLocalPort() + family.basePath);
			}
		}
		try (ConfigurableApplicationContext refused = start(nowhere::get)) {
			scenario("refused-connection", 1, 60, refused, (family) -> (request) -> Answer.OK);
		}
	}

	/**
	 * Runs {@code calls} calls of every family at once, each family's mock answering as {@code policy} says, and
	 * records a row per family; a call still waiting {@code limitSeconds} after the start is counted as waiting
	 * (and cancelled).
	 */
	private static void scenario(String name, int calls, int limitSeconds, ConfigurableApplicationContext app,
			Function<Family, Function<Seen, Answer>> policy) throws Exception {
		Map<Family, Double> attemptsBefore = new EnumMap<>(Family.class);
		Map<Family, List<Future<Optional<Throwable>>>> futures = new EnumMap<>(Family.class);
		for (Family family : Family.values()) {
			mocks.get(family).answering(policy.apply(family));
			attemptsBefore.put(family, attempts(app, family));
		}
		long started = System.nanoTime();
		Map<Family, AtomicLong> lastDone = new EnumMap<>(Family.class);
		for (Family family : Family.values()) {
			ChatModel model = (ChatModel) app.getBean(Class.forName(family.modelClass));
			AtomicLong last = new AtomicLong();
			lastDone.put(family, last);
			List<Future<Optional<Throwable>>> each = new ArrayList<>();
			for (int i = 0; i < calls; i++) {
				String prompt = "call-" + i;
				each.add(callers.submit(() -> {
					try {
						assertThat(model.call(prompt)).isEqualTo("answer to " + prompt);
						return Optional.empty();
					}
					catch (Throwable ex) {
						return Optional.of(ex);
					}
					finally {
						last.accumulateAndGet(System.nanoTime() - started, Math::max);
					}
				}));
			}
			futures.put(family, each);
		}
		long limit = started + TimeUnit.SECONDS.toNanos(limitSeconds);
		for (Family family : Family.values()) {
			List<Throwable> failures = new ArrayList<>();
			int waiting = 0;
			for (Future<Optional<Throwable>> future : futures.get(family)) {
				try {
					future.get(Math.max(0, limit - System.nanoTime()), TimeUnit.NANOSECONDS).ifPresent(failures::add);
				}
				catch (TimeoutException ex) {
					// the caller is still waiting (a client that waits out an hour's hint): not a success, no type
					future.cancel(true);
					waiting++;
				}
			}
			ModelMock mock = mocks.get(family);
			List<Seen> seen = mock.seen();
			int maxPerCall = seen.stream()
				.collect(Collectors.groupingBy(Seen::call, Collectors.counting()))
				.values()
				.stream()
				.mapToInt(Long::intValue)
				.max()
				.orElse(0);
			double attempts = attempts(app, family) - attemptsBefore.get(family);
			String types = types(failures);
			rows.add(String.join("\t", SIDE, family.name().toLowerCase(), name, Integer.toString(calls),
					Integer.toString(calls - failures.size() - waiting), Integer.toString(seen.size()),
					Integer.toString(maxPerCall), Integer.toString(mock.early()), types,
					Long.toString(TimeUnit.NANOSECONDS.toMillis(lastDone.get(family).get())),
					Long.toString(Math.round(attempts)), Integer.toString(waiting)));
		}
	}

	private static String types(Collection<Throwable> failures) {
		TreeSet<String> types = new TreeSet<>();
		for (Throwable failure : failures) {
			Throwable thrown = (failure instanceof ExecutionException && failure.getCause() != null)
					? failure.getCause() : failure;
			types.add(thrown.getClass().getName());
		}
		return types.isEmpty() ? "-" : String.join(",", types);
	}

	/** The starter's attempts for the family's provider, read by name: none without the starter. */
	private static double attempts(ConfigurableApplicationContext app, Family family) {
		if ("without".equals(SIDE)) {
			return -1;
		}
		return app.getBean(MeterRegistry.class)
			.find("retry.after.attempts")
			.tag("provider", family.provider)
			.functionCounters()
			.stream()
			.mapToDouble(FunctionCounter::count)
			.sum();
	}

	private static ConfigurableApplicationContext start(Function<Family, String> baseUrl) {
		// Spring AI has no property for Gemini's base URL: the SDK's own default is set before the context builds it
		Client.setDefaultBaseUrls(Optional.of(baseUrl.apply(Family.GEMINI)), Optional.empty());
		return new SpringApplicationBuilder(MatrixApplication.class).web(WebApplicationType.NONE)
			.run("--spring.ai.openai.base-url=" + baseUrl.apply(Family.OPENAI),
					"--spring.ai.anthropic.base-url=" + baseUrl.apply(Family.ANTHROPIC),
					"--spring.ai.ollama.base-url=" + baseUrl.apply(Family.OLLAMA));
	}

	/** The API's limit, on the server's clock: at most {@code limit} requests admitted in any {@code window}. */
	static final class SlidingWindow {

		private final int limit;

		private final long window;

		private final Deque<Long> admitted = new ArrayDeque<>();

		SlidingWindow(int limit, long windowNanos) {
			this.limit = limit;
			this.window = windowNanos;
		}

		synchronized boolean admit(long nowNanos) {
			while (!this.admitted.isEmpty() && nowNanos - this.admitted.peekFirst() >= this.window) {
				this.admitted.pollFirst();
			}
			if (this.admitted.size() < this.limit) {
				this.admitted.addLast(nowNanos);
				return true;
			}
			return false;
		}

	}

}
