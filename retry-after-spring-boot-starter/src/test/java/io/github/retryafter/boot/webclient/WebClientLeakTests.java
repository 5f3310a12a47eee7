package io.github.retryafter.boot.webclient;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.ConnectionPoolMetrics;
import reactor.netty.resources.ConnectionProvider;

import io.github.retryafter.boot.testing.RecordingListener;
import io.github.retryafter.engine.HintMode;
import io.github.retryafter.engine.Outcome;
import io.github.retryafter.engine.RetryPolicy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 10,000 operations of a 503 (with a body, {@code Retry-After: 0}) then a 200 over a pooled Reactor Netty connection
 * provider, against a loopback server, with Netty's leak detector at {@code PARANOID}: every connection goes back to
 * the pool or is closed, and no buffer leaks.
 */
class WebClientLeakTests {

	private static final int OPERATIONS = 10_000;

	private final ListAppender<ILoggingEvent> leaks = new ListAppender<>();

	private final Logger leakLogger = (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);

	private ResourceLeakDetector.Level level;

	private DisposableServer server;

	@BeforeEach
	void paranoid() {
		this.level = ResourceLeakDetector.getLevel();
		ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
		this.leaks.start();
		this.leakLogger.addAppender(this.leaks);
	}

	@AfterEach
	void restore() {
		this.leakLogger.detachAppender(this.leaks);
		ResourceLeakDetector.setLevel(this.level);
		if (this.server != null) {
			this.server.disposeNow(Duration.ofSeconds(5));
		}
	}

	@Test
	void everyConnectionIsReturnedAndNoBufferLeaks() {
		AtomicInteger requests = new AtomicInteger();
		// one path per operation: each path is refused once, then served; at most OPERATIONS entries
		Set<String> refused = ConcurrentHashMap.newKeySet();
		this.server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.handle((request, response) -> request.receive().then((requests.incrementAndGet() > 0 && refused.add(request.uri()))
					? response.status(503).header("Retry-After", "0").sendString(Mono.just("try again")).then()
					: response.status(200).sendString(Mono.just("ok")).then()))
			.bindNow();
		List<ConnectionPoolMetrics> pools = new CopyOnWriteArrayList<>();
		ConnectionProvider provider = ConnectionProvider.builder("leak-test")
			.maxConnections(16)
			.pendingAcquireTimeout(Duration.ofSeconds(20))
			.metrics(true, () -> (name, id, address, metrics) -> pools.add(metrics))
			.build();
		RecordingListener events = new RecordingListener();
		RetryPolicy policy = RetryPolicy.builder().hintMode(HintMode.EXACT).build();
		WebClient client = WebClient.builder()
			.baseUrl("http://127.0.0.1:" + this.server.port())
			.clientConnector(new ReactorClientHttpConnector(HttpClient.create(provider)))
			.filter(TestFilters.realTime(policy, 1024, events))
			.build();
		List<String> bodies = Flux.range(0, OPERATIONS)
			.flatMap((i) -> client.get().uri("/items/" + i).retrieve().bodyToMono(String.class), 16)
			.collectList()
			// a guard against a hang, not a speed claim: on a loaded 2-core machine the run takes 45 to 60 s
			.block(Duration.ofMinutes(3));
		assertThat(bodies).hasSize(OPERATIONS).containsOnly("ok");
		assertThat(requests.get()).isEqualTo(2 * OPERATIONS);
		assertThat(events.finished).hasSize(OPERATIONS)
			.allSatisfy((event) -> assertThat(event.outcome()).isEqualTo(Outcome.SUCCESS));
		assertThat(pools).isNotEmpty();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(pools).allSatisfy((pool) -> assertThat(pool.acquiredSize()).isZero()));
		provider.disposeLater().block(Duration.ofSeconds(5));
		collectLeaks();
		assertThat(this.leaks.list).filteredOn((event) -> event.getFormattedMessage().contains("LEAK")).isEmpty();
	}

	@Test
	void theCaptureSeesALeakWhenThereIsOne() {
		leakOneBuffer();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			collectLeaks();
			assertThat(this.leaks.list).anySatisfy((event) -> assertThat(event.getFormattedMessage()).contains("LEAK"));
		});
	}

	private static void leakOneBuffer() {
		PooledByteBufAllocator.DEFAULT.directBuffer(64).writeInt(42);
	}

	/**
	 * Leaks are reported when a leaked buffer has been collected and a later allocation polls the detector's queue:
	 * collect, then allocate and release buffers of the kinds the client used.
	 */
	private static void collectLeaks() {
		for (int round = 0; round < 5; round++) {
			System.gc();
			for (int i = 0; i < 100; i++) {
				ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(64);
				ByteBuf heap = PooledByteBufAllocator.DEFAULT.heapBuffer(64);
				direct.release();
				heap.release();
			}
		}
	}

}
