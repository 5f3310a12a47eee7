package io.github.retryafter.sample;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that starts an external program found on the {@code PATH}. When the program is missing the class
 * is skipped with a message saying so, unless the environment variable {@code CI} is {@code true}: then it fails,
 * because CI installs the program first ({@code .ci/run}) and a skipped test there would hide a broken setup.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresBinaryExtension.class)
public @interface RequiresBinary {

	/**
	 * Returns the program's name, which is also the Debian package that installs it.
	 * @return the name
	 */
	String value();

}
