import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * Runs statements on one JDBC session over TLS (sslmode=verify-full) with
 * SCRAM-SHA-256: run by TestPrivileges with the JDBC URL, the CA file, the
 * user, the password and the statements; prints "ok" or "error SQLSTATE"
 * for each, one per line.
 */
public class JdbcStatements {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.setProperty("user", args[2]);
        props.setProperty("password", args[3]);
        props.setProperty("sslmode", "verify-full");
        props.setProperty("sslrootcert", args[1]);
        props.setProperty("sslcert", "");
        try (Connection c = DriverManager.getConnection(args[0], props)) {
            for (int i = 4; i < args.length; i++) {
                try (Statement s = c.createStatement()) {
                    s.execute(args[i]);
                    System.out.println("ok");
                } catch (SQLException e) {
                    System.out.println("error " + e.getSQLState());
                }
            }
        }
    }
}
