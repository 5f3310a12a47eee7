/**
 * A transport adapter for the JDK's {@code java.net.http.HttpClient} used directly:
 * {@link io.github.retryafter.jdk.RetryingHttpClient} supplies how to send one attempt and the
 * {@link io.github.retryafter.engine.RetryLoop} does the rest. No dependencies beyond the JDK.
 */
package io.github.retryafter.jdk;
