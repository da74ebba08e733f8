import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Runs DynamoDB Local listening on 127.0.0.1 only.
 *
 * DynamoDB Local has no option for the listen address: its server is built with Jetty's
 * Server(port), which binds every interface. This builds the server exactly as the jar's own main
 * does (same command-line options), then sets the host of its connectors before it starts.
 * Compiled once by local/aws-stack/dynamodb-local.ts; see docs/operations.md.
 */
public final class LoopbackDynamoDbLocal {
  private static final String LOOPBACK = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    if (proxy == null) {
      System.exit(1); // invalid options: the runner has already printed why
    }
    Field serverField = DynamoDBProxyServer.class.getDeclaredField("server");
    serverField.setAccessible(true);
    Server server = (Server) serverField.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) {
      throw new IllegalStateException("DynamoDB Local built a server without connectors");
    }
    for (Connector connector : connectors) {
      ((ServerConnector) connector).setHost(LOOPBACK);
    }
    proxy.start();
  }
}
