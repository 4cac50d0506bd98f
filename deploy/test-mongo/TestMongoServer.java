import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Starts mongo-java-server (in-memory backend) on a loopback address for the BioGate store
 * contract suite. Usage: {@code java TestMongoServer [host] [port]}; port 0 (the default) lets the
 * kernel pick a free port, so two CI jobs on one machine never race for the same number.
 * Prints {@code LISTENING host:port} once the socket accepts connections; stops on SIGTERM.
 */
public final class TestMongoServer {
    /**
     * Every ServerVersion of mongo-java-server 1.47.0 (even MONGO_5_0) announces wire version 8,
     * and the mongodb 7.x Node driver refuses servers below wire version 9 (MongoDB 4.4). Announce
     * the lowest version the driver accepts, so it does not assume anything newer than needed.
     */
    private static final MongoVersion ANNOUNCED = new MongoVersion() {
        @Override
        public List<Integer> getVersionArray() {
            return List.of(4, 4, 0);
        }

        @Override
        public int getWireVersion() {
            return 9;
        }
    };

    public static void main(String[] args) throws InterruptedException {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        MongoServer server = new MongoServer(new MemoryBackend().version(ANNOUNCED));
        server.bind(host, port);
        InetSocketAddress bound = server.getLocalAddress();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdownNow();
            stopped.countDown();
        }));
        System.out.println("LISTENING " + bound.getHostString() + ":" + bound.getPort());
        System.out.flush();
        stopped.await();
    }
}
