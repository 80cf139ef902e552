import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import java.util.TimeZone;

/**
 * JDBC's DatabaseMetaData against streamdb, as DBeaver-style tools read it:
 * getTables, getColumns, getPrimaryKeys and getIndexInfo, the driver's
 * startup time zone, then a batch in a transaction. Run by TestJDBCMetadata with the JDBC URL as args[0]; prints
 * one line per fact, which the test compares.
 */
public class JdbcMetadata {
    public static void main(String[] args) throws Exception {
        // The driver sends the JVM's zone at connect, as JDBC does.
        TimeZone.setDefault(TimeZone.getTimeZone("Europe/Paris"));
        Properties props = new Properties();
        props.setProperty("user", "jdbc");
        try (Connection c = DriverManager.getConnection(args[0], props)) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE jdbc_t (id int PRIMARY KEY, name text NOT NULL, score double precision)");
                s.execute("CREATE INDEX jdbc_t_name ON jdbc_t (name)");
                s.execute("CREATE MATERIALIZED VIEW jdbc_mv AS SELECT name, count(*) AS n FROM jdbc_t GROUP BY name");
            }
            DatabaseMetaData md = c.getMetaData();
            System.out.println("product " + md.getDatabaseProductName());
            try (ResultSet rs = md.getTables(null, "public", "jdbc%", null)) {
                while (rs.next()) System.out.println("table " + rs.getString("TABLE_NAME") + " " + rs.getString("TABLE_TYPE"));
            }
            try (ResultSet rs = md.getColumns(null, "public", "jdbc_t", null)) {
                while (rs.next()) System.out.println("column " + rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " " + rs.getString("IS_NULLABLE"));
            }
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "jdbc_t")) {
                while (rs.next()) System.out.println("pk " + rs.getString("PK_NAME") + " " + rs.getString("COLUMN_NAME") + " " + rs.getInt("KEY_SEQ"));
            }
            try (ResultSet rs = md.getIndexInfo(null, "public", "jdbc_t", false, false)) {
                while (rs.next()) System.out.println("index " + rs.getString("INDEX_NAME") + " " + rs.getString("COLUMN_NAME")
                        + " " + rs.getInt("ORDINAL_POSITION") + " unique=" + !rs.getBoolean("NON_UNIQUE") + " " + rs.getString("ASC_OR_DESC"));
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW TimeZone")) {
                rs.next();
                System.out.println("timezone " + rs.getString(1));
            }
            // A batch in a transaction that fails half way leaves nothing.
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.addBatch("INSERT INTO jdbc_t VALUES (1, 'a', 1.5)");
                s.addBatch("INSERT INTO jdbc_t VALUES (1, 'b', 2.5)");
                s.executeBatch();
                System.out.println("batch accepted");
            } catch (java.sql.BatchUpdateException e) {
                System.out.println("batch failed " + e.getSQLState());
                c.rollback();
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO jdbc_t VALUES (2, 'b', 2.5)");
                c.commit();
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM jdbc_t ORDER BY id")) {
                while (rs.next()) System.out.println("row " + rs.getInt(1));
            }
        }
    }
}
