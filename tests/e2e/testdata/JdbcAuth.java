import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * Logs in to streamdb with the JDBC driver over TLS verified against a CA
 * (sslmode=verify-full) with SCRAM-SHA-256: run by TestJDBCAuth with the
 * JDBC URL, the CA file, the user and the password; prints current_user, or
 * the SQLSTATE of the failure.
 */
public class JdbcAuth {
    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.setProperty("user", args[2]);
        props.setProperty("password", args[3]);
        props.setProperty("sslmode", args[1].isEmpty() ? "disable" : "verify-full");
        if (!args[1].isEmpty()) {
            props.setProperty("sslrootcert", args[1]);
            // No client certificate: the driver would look for one in the home directory.
            props.setProperty("sslcert", "");
        }
        try (Connection c = DriverManager.getConnection(args[0], props);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT current_user")) {
            rs.next();
            System.out.println("user " + rs.getString(1));
        } catch (SQLException e) {
            System.out.println("error " + e.getSQLState());
        }
    }
}
