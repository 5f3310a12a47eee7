package io.github.retryafter.sample;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import io.github.retryafter.boot.RetryAfterAttributes;
import io.github.retryafter.boot.RetryAfterProviders;
import io.github.retryafter.boot.RetryOutcome;
import io.github.retryafter.sample.ScenarioResult.OperationResult;

/**
 * Runs scenarios: sets the simulated provider's conditions, fires every operation at once through the scenario's
 * client, waits for all of them to end and keeps the result for the home page. One scenario runs at a time; a second
 * caller waits for the first, while the results stay readable. Thread-safe.
 */
public class ScenarioRunner {

	private static final Log logger = LogFactory.getLog(ScenarioRunner.class);

	/** Longest a scenario may take before it is reported as stuck. */
	static final Duration TIMEOUT = Duration.ofSeconds(60);

	private static final String RESOURCE = "/provider/resource";

	private static final String WARM_UP = "/provider/status/204";

	private final SimulatedProvider provider;

	private final RetryAfterProviders providers;

	private final WebClient webClient;

	private final RestClient restClient;

	private final ChatClient chatClient;

	private final Environment environment;

	private final InstantSource clock;

	private final Map<String, ScenarioResult> latestByName = new LinkedHashMap<>();

	private volatile ScenarioResult last;

	private long runs;

	ScenarioRunner(SimulatedProvider provider, RetryAfterProviders providers, WebClient webClient,
			RestClient restClient, ChatClient chatClient, Environment environment, InstantSource clock) {
		this.provider = provider;
		this.providers = providers;
		this.webClient = webClient;
		this.restClient = restClient;
		this.chatClient = chatClient;
		this.environment = environment;
		this.clock = clock;
	}

	/**
	 * Runs a scenario to its end.
	 * @param scenario the scenario
	 * @return what it produced
	 * @throws IllegalArgumentException if the scenario names a provider that is not configured
	 * @throws IllegalStateException if the web server is not running or the scenario took longer than a minute
	 */
	public synchronized ScenarioResult run(Scenario scenario) {
		String hintMode = this.providers.get(scenario.provider())
			.orElseThrow(() -> new IllegalArgumentException("scenario '" + scenario.name() + "' uses provider '"
					+ scenario.provider() + "' but retry.after.providers has only "
					+ this.providers.all().stream().map(RetryAfterProviders.Provider::name).toList()))
			.settings()
			.policy()
			.hintMode()
			.name();
		Integer port = this.environment.getProperty("local.server.port", Integer.class);
		if (port == null) {
			throw new IllegalStateException("the web server is not running, so the simulated provider cannot be called");
		}
		String url = "http://localhost:" + port + RESOURCE;
		String prefix = scenario.name() + "-" + (++this.runs) + "-";
		ExecutorService threads = (scenario.client() != Scenario.Client.WEB_CLIENT)
				? Executors.newFixedThreadPool(Math.min(scenario.operations(), 256)) : null;
		try {
			if (scenario.client() != Scenario.Client.CHAT_CLIENT) {
				warmUp(scenario, threads, "http://localhost:" + port + WARM_UP);
			}
			else {
				// one call first, so the SDK's and the model's first-use costs are not counted in the drain
				chatOperation("warm-up");
			}
			this.provider.start(scenario.conditions());
			long started = this.clock.millis();
			List<OperationResult> operations = switch (scenario.client()) {
				case WEB_CLIENT -> viaWebClient(url, scenario, prefix);
				case REST_CLIENT -> viaRestClient(url, scenario, prefix, threads);
				case CHAT_CLIENT -> viaChatClient(scenario, "model-" + this.runs + "-", threads);
			};
			long duration = this.clock.millis() - started;
			return finish(scenario, hintMode, operations, duration);
		}
		finally {
			if (threads != null) {
				threads.shutdownNow();
			}
		}
	}

	private ScenarioResult finish(Scenario scenario, String hintMode, List<OperationResult> operations,
			long duration) {
		ScenarioResult result = new ScenarioResult(scenario, hintMode, operations, this.provider.arrivals(), duration);
		synchronized (this.latestByName) {
			this.latestByName.remove(scenario.name());
			this.latestByName.put(scenario.name(), result);
			this.last = result;
		}
		logger.info("Scenario " + scenario.name() + " finished:\n" + result.table());
		return result;
	}

	/**
	 * Returns the result of the last run.
	 * @return the result, if a scenario ran
	 */
	public Optional<ScenarioResult> last() {
		return Optional.ofNullable(this.last);
	}

	/**
	 * Returns the latest result of each scenario that ran, the most recent first.
	 * @return the results
	 */
	public List<ScenarioResult> latestByName() {
		List<ScenarioResult> results;
		synchronized (this.latestByName) {
			results = new ArrayList<>(this.latestByName.values());
		}
		java.util.Collections.reverse(results);
		return results;
	}

	private List<OperationResult> viaWebClient(String url, Scenario scenario, String prefix) {
		List<OperationResult> results = Flux.range(0, scenario.operations())
			.flatMap((index) -> webClientOperation(url, scenario.provider(), prefix + index), scenario.operations())
			.collectList()
			.block(TIMEOUT);
		if (results == null || results.size() != scenario.operations()) {
			throw new IllegalStateException("scenario '" + scenario.name() + "' did not finish within " + TIMEOUT);
		}
		return results;
	}

	private Mono<OperationResult> webClientOperation(String url, String provider, String operationId) {
		AtomicReference<RetryOutcome> outcome = new AtomicReference<>();
		return this.webClient.get()
			.uri(url)
			.attributes(RetryAfterAttributes.provider(provider))
			.attributes(RetryAfterAttributes.idempotencyKey(operationId))
			.attributes(RetryAfterAttributes.onOutcome(outcome::set))
			.exchangeToMono((response) -> response.releaseBody())
			.then(Mono.fromSupplier(() -> toResult(operationId, outcome.get(), null)))
			.onErrorResume((ex) -> Mono.just(toResult(operationId, outcome.get(), ex)));
	}

	/**
	 * Sends as many plain requests as the burst has operations, at once and without retries, before the scenario
	 * starts: the connections and server threads the burst needs then exist already, so its first attempts arrive
	 * together instead of trickling in behind connection set-up. They go to the stateless route and are not recorded.
	 */
	private void warmUp(Scenario scenario, ExecutorService threads, String url) {
		if (threads == null) {
			Flux.range(0, scenario.operations())
				.flatMap((index) -> this.webClient.get()
					.uri(url)
					.attributes(RetryAfterAttributes.disabled())
					.exchangeToMono((response) -> response.releaseBody())
					.onErrorResume((ex) -> Mono.empty()), scenario.operations())
				.then()
				.block(TIMEOUT);
			return;
		}
		List<Callable<Object>> calls = new ArrayList<>();
		for (int index = 0; index < scenario.operations(); index++) {
			calls.add(() -> this.restClient.get()
				.uri(url)
				.attributes(RetryAfterAttributes.disabled())
				.retrieve()
				.onStatus((status) -> true, (request, response) -> {
				})
				.toBodilessEntity());
		}
		try {
			threads.invokeAll(calls, TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while warming up for scenario '" + scenario.name() + "'", ex);
		}
	}

	private List<OperationResult> viaRestClient(String url, Scenario scenario, String prefix, ExecutorService threads) {
		try {
			List<Callable<OperationResult>> calls = new ArrayList<>();
			for (int index = 0; index < scenario.operations(); index++) {
				String operationId = prefix + index;
				calls.add(() -> restClientOperation(url, scenario.provider(), operationId));
			}
			List<OperationResult> results = new ArrayList<>();
			for (Future<OperationResult> future : threads.invokeAll(calls, TIMEOUT.toMillis(),
					java.util.concurrent.TimeUnit.MILLISECONDS)) {
				results.add(future.get());
			}
			return results;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while running scenario '" + scenario.name() + "'", ex);
		}
		catch (ExecutionException | java.util.concurrent.CancellationException ex) {
			throw new IllegalStateException("scenario '" + scenario.name() + "' did not finish within " + TIMEOUT, ex);
		}
	}

	/**
	 * Sends the operations as chat calls through Spring AI's {@code ChatClient}, each naming its operation in the
	 * prompt, one thread each. Nothing of retry-after is visible at this level: an operation's attempts are what the
	 * model API saw under its name, and a failure is the exception the SDK threw.
	 */
	private List<OperationResult> viaChatClient(Scenario scenario, String prefix, ExecutorService threads) {
		List<Callable<String>> calls = new ArrayList<>();
		for (int index = 0; index < scenario.operations(); index++) {
			String operationId = prefix + index;
			calls.add(() -> chatOperation(operationId));
		}
		List<String> outcomes = new ArrayList<>();
		try {
			for (Future<String> future : threads.invokeAll(calls, TIMEOUT.toMillis(),
					java.util.concurrent.TimeUnit.MILLISECONDS)) {
				outcomes.add(future.get());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while running scenario '" + scenario.name() + "'", ex);
		}
		catch (ExecutionException | java.util.concurrent.CancellationException ex) {
			throw new IllegalStateException("scenario '" + scenario.name() + "' did not finish within " + TIMEOUT, ex);
		}
		Map<String, Integer> attempts = new LinkedHashMap<>();
		this.provider.arrivals().forEach((arrival) -> attempts.merge(arrival.operationId(), 1, Integer::sum));
		List<OperationResult> results = new ArrayList<>();
		for (int index = 0; index < outcomes.size(); index++) {
			String operationId = prefix + index;
			results.add(new OperationResult(operationId, outcomes.get(index), attempts.getOrDefault(operationId, 0)));
		}
		return results;
	}

	private String chatOperation(String operationId) {
		try {
			this.chatClient.prompt().user("Answer 'done' for " + operationId).call().content();
			return "SUCCESS";
		}
		catch (RuntimeException ex) {
			logger.warn("Chat call " + operationId + " failed", ex);
			return "FAILED (" + ex.getClass().getSimpleName() + ")";
		}
	}

	private OperationResult restClientOperation(String url, String provider, String operationId) {
		AtomicReference<RetryOutcome> outcome = new AtomicReference<>();
		try {
			this.restClient.get()
				.uri(url)
				.attributes(RetryAfterAttributes.provider(provider))
				.attributes(RetryAfterAttributes.idempotencyKey(operationId))
				.attributes(RetryAfterAttributes.onOutcome(outcome::set))
				.retrieve()
				.onStatus((status) -> true, (request, response) -> {
				})
				.toBodilessEntity();
			return toResult(operationId, outcome.get(), null);
		}
		catch (RuntimeException ex) {
			return toResult(operationId, outcome.get(), ex);
		}
	}

	private static OperationResult toResult(String operationId, RetryOutcome outcome, Throwable failure) {
		if (outcome != null) {
			return new OperationResult(operationId, outcome.outcome().name(), outcome.attempts());
		}
		logger.warn("Operation " + operationId + " ended without a retry-after outcome", failure);
		return new OperationResult(operationId, "ERROR", 0);
	}

}
