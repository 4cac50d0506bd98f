import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Starts mongo-java-server (in-memory backend) on a loopback address for the BioGate store
 * contract suite. Usage: {@code java TestMongoServer [host] [port]}; port 0 (the default) lets the
 * kernel pick a free port, so two CI jobs on one machine never race for the same number.
 * Prints {@code LISTENING host:port} once the socket accepts connections; stops on SIGTERM.
 *
 * <p>Outage drills (test/hardening/store-outage.test.ts): the launcher also prints
 * {@code CONTROL host:port}, a loopback line-protocol port. {@code stop} closes the listening socket
 * and every client connection, as a crashed or unreachable database would, but keeps the in-memory
 * data; {@code start} binds the same address again with the same data; {@code status} tells which.
 * Each command is answered with one line ({@code STOPPED}, {@code LISTENING host:port}, or
 * {@code ERROR reason}).
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

    private static final Object FIND_AND_MODIFY = new Object();

    private static boolean isFindAndModify(java.lang.reflect.Method method, Object[] args) {
        if (!method.getName().equals("handleMessage") || args == null || args.length != 1) return false;
        if (!(args[0] instanceof de.bwaldvogel.mongo.wire.message.MongoMessage message)) return false;
        var keys = message.getDocument().keySet();
        return !keys.isEmpty() && keys.iterator().next().equalsIgnoreCase("findAndModify");
    }

    private final String host;
    private final MongoBackend backend;
    private MongoServer server;
    private InetSocketAddress bound;

    private TestMongoServer(String host, int port) {
        this.host = host;
        // mongo-java-server closes its backend on shutdown; this view ignores close() so a stopped
        // server can start again with the data it had.
        MemoryBackend memory = new MemoryBackend();
        memory.version(ANNOUNCED);
        // Change streams (issue #14: the cluster event feed) read the oplog.
        memory.enableOplog();
        this.backend = (MongoBackend) Proxy.newProxyInstance(MongoBackend.class.getClassLoader(), new Class<?>[] {MongoBackend.class},
            (proxy, method, args) -> {
                if (method.getName().equals("close") && method.getParameterCount() == 0) return null;
                try {
                    // The memory backend's findAndModify reads, then writes: two at once on one document can
                    // both read the same value (an $inc handed out twice). MongoDB makes it atomic per
                    // document; so does this lock (one findAndModify at a time, everything else as it was).
                    // Its reply holds the stored document itself, encoded after the lock is released: the
                    // next findAndModify could change it in between (a reply showing another writer's
                    // value), so the reply is copied inside the lock.
                    if (isFindAndModify(method, args)) {
                        synchronized (FIND_AND_MODIFY) {
                            Object reply = method.invoke(memory, args);
                            return reply instanceof Document document ? document.cloneDeeply() : reply;
                        }
                    }
                    return method.invoke(memory, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
        this.bound = new InetSocketAddress(host, port);
    }

    private synchronized String start() throws InterruptedException {
        if (server != null) return listening();
        RuntimeException last = null;
        // The port was ours a moment ago; give the kernel a few tries to release it.
        for (int attempt = 0; attempt < 50; attempt++) {
            MongoServer candidate = new MongoServer(backend);
            try {
                candidate.bind(host, bound.getPort());
                server = candidate;
                bound = candidate.getLocalAddress();
                return listening();
            } catch (RuntimeException e) {
                last = e;
                candidate.shutdownNow();
                Thread.sleep(100);
            }
        }
        throw last;
    }

    private synchronized String stop() {
        if (server != null) {
            server.shutdownNow(); // stop listening, close every client connection
            server = null;
        }
        return "STOPPED";
    }

    private synchronized String status() {
        return server == null ? "STOPPED" : listening();
    }

    private String listening() {
        return "LISTENING " + bound.getHostString() + ":" + bound.getPort();
    }

    private String command(String line) {
        try {
            switch (line.trim()) {
                case "stop": return stop();
                case "start": return start();
                case "status": return status();
                default: return "ERROR unknown command (stop, start, status)";
            }
        } catch (Exception e) {
            return "ERROR " + e;
        }
    }

    private void serveControl(ServerSocket control) {
        while (!control.isClosed()) {
            try (Socket client = control.accept()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8), true);
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    String answer = command(line);
                    System.out.println("control: " + line.trim() + " -> " + answer);
                    System.out.flush();
                    out.println(answer);
                }
            } catch (IOException e) {
                // one control client went away; keep serving the next
            }
        }
    }

    /**
     * A test that starts its own server names its process here: when that process is gone (killed
     * by a test timeout before its teardown ran) the server exits too instead of lingering.
     */
    private static void exitWithOwner(String ownerPid) {
        if (ownerPid == null || ownerPid.isEmpty()) return;
        long pid = Long.parseLong(ownerPid);
        Thread watch = new Thread(() -> {
            while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.out.println("owner process " + pid + " is gone: exiting");
            System.exit(0);
        }, "owner-watch");
        watch.setDaemon(true);
        watch.start();
    }

    public static void main(String[] args) throws Exception {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        TestMongoServer launcher = new TestMongoServer(host, port);
        String listening = launcher.start();
        ServerSocket control = new ServerSocket(0, 4, InetAddress.getByName(host));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            launcher.stop();
            try {
                control.close();
            } catch (IOException e) {
                // exiting anyway
            }
        }));
        System.out.println(listening);
        System.out.println("CONTROL " + host + ":" + control.getLocalPort());
        System.out.flush();
        exitWithOwner(System.getenv("BIOGATE_TEST_MONGO_OWNER_PID"));
        launcher.serveControl(control);
    }
}
