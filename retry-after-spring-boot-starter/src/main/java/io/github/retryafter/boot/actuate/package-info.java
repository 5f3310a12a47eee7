/**
 * Spring Boot Actuator support of retry-after: the {@code retryafter} endpoint and the per-provider activity it shows.
 */
package io.github.retryafter.boot.actuate;
