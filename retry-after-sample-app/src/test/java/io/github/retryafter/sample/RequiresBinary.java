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
	 * Returns the program's name.
	 * @return the name
	 */
	String value();

	/**
	 * Returns the Debian package that installs the program, when its name differs from the program's ({@code promtool}
	 * comes with {@code prometheus}).
	 * @return the package's name, or empty for the program's own name
	 */
	String debianPackage() default "";

}
