package io.github.retryafter.sample;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the sample app, under {@code sample.*}.
 */
@ConfigurationProperties("sample")
public class SampleProperties {

	/**
	 * Name of a scenario to run once the app has started, such as 'herd' or 'jitter'.
	 */
	private String scenario;

	/**
	 * How far the simulated provider's clock, and so its Date header, is off the real time outside scenarios;
	 * negative for behind.
	 */
	private Duration clockSkew = Duration.ZERO;

	public String getScenario() {
		return this.scenario;
	}

	public void setScenario(String scenario) {
		this.scenario = scenario;
	}

	public Duration getClockSkew() {
		return this.clockSkew;
	}

	public void setClockSkew(Duration clockSkew) {
		this.clockSkew = clockSkew;
	}

}
