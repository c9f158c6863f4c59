package oracle;

import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.data.variant.Variant;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.index.SimpleHashBucketAssigner;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.io.File;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Java Paimon as a test oracle for paimon-rt. Same CLI, spec format and value encoding as
 * pypaimon_oracle.py (see README.md next to it), plus what only Java can do: row kinds
 * ({@code "_kind": "-D"} etc. in a row), compaction ({@code "compact": true} in a commit) and
 * therefore deletion-vector tables.
 *
 * <pre>
 *   write   &lt;warehouse&gt; &lt;db.table&gt; &lt;spec.json&gt;
 *   read    &lt;warehouse&gt; &lt;db.table&gt; [--snapshot N] [--sort] [--with-kind] [--filter-eq column json-value]...
 *           [--filter column op json-value]...   (op: = &lt;&gt; &lt; &lt;= &gt; &gt;=)
 *           [--execute-filter]   (also test every row with Predicate.test: exact filtering)
 *           [--tag name]   (read tag `name`: scan.tag-name as a dynamic option)
 *           [--option key=value]...   (any dynamic option, Table.copy: e.g. incremental-between=1,3)
 *   expire-partitions &lt;warehouse&gt; &lt;db.table&gt;   (Java's PartitionExpire by the table's options)
 *   batch   &lt;commands.json&gt;   (a JSON array of argument lists; one result line per command)
 *   serve   (argument lists as JSON lines on stdin, one result line each, as batch; until stdin ends)
 *   create-tag    &lt;warehouse&gt; &lt;db.table&gt; &lt;tag&gt; &lt;snapshot-id&gt;   (Table.createTag)
 *   delete-tag    &lt;warehouse&gt; &lt;db.table&gt; &lt;tag&gt;                 (Table.deleteTag)
 *   rename-tag    &lt;warehouse&gt; &lt;db.table&gt; &lt;tag&gt; &lt;new-name&gt;      (Table.renameTag)
 *   replace-tag   &lt;warehouse&gt; &lt;db.table&gt; &lt;tag&gt; &lt;snapshot-id&gt;   (Table.replaceTag, no retention)
 *   set-options   &lt;warehouse&gt; &lt;db.table&gt; key=value...   (ALTER TABLE SET; "key=" removes the option)
 *   alter         &lt;warehouse&gt; &lt;db.table&gt; &lt;changes.json&gt;   (Catalog.alterTable with paimon-rt's SchemaChange
 *                 list: addColumn (after), renameColumn, dropColumn, updateColumnType, setOption, removeOption)
 *   tags          &lt;warehouse&gt; &lt;db.table&gt;   (prints {"tag": snapshot id, ...})
 *   create-branch &lt;warehouse&gt; &lt;db.table&gt; &lt;branch&gt; [tag]   (Table.createBranch; db.t$branch_b reads/writes it)
 *   drop-branch   &lt;warehouse&gt; &lt;db.table&gt; &lt;branch&gt;   (Table.deleteBranch)
 *   fast-forward  &lt;warehouse&gt; &lt;db.table&gt; &lt;branch&gt;   (Table.fastForward)
 *   branches      &lt;warehouse&gt; &lt;db.table&gt;   (prints the sorted branch names)
 *   rest-server   &lt;data dir&gt; &lt;warehouse name&gt; &lt;token&gt; [key=value...]   (Java's RESTCatalogServer; extra config
 *                 defaults such as data-token.enabled=true; the data dir may be s3://…; prints its URL, then serves
 *                 until stdin closes, reading commands from stdin: "data-token &lt;db.table&gt; &lt;expiresAtMillis&gt;
 *                 key=value..." sets the credentials the server vends for that table and prints "ok")
 *   sketch        &lt;ops.json&gt;   (DataSketches 4.2.0 as Paimon shades it: a JSON array of operations, one result
 *                 line each, {"ok":true,"bytes":base64} or {"ok":false,"error":...}; see {@link #sketchOp})
 *   hashmap       &lt;cases.json&gt;   (java.util.HashMap iteration order: a JSON array of cases
 *                 {"type":..., "insertion":"put"|"computeIfAbsent", "ops":[["+"|"-", key-or-null]...]}, one line
 *                 each, {"ok":true,"order":[op index...]}: the index of the op that inserted each key, in iteration
 *                 order; see {@link #hashMapKey})
 *   variant       &lt;ops.json&gt;   (GenericVariant: a JSON array of operations, one result line each; see {@link #variantOp})
 *   version
 * Every &lt;warehouse&gt; may also be {@code rest:<uri>?warehouse=<name>&token=<token>}: Java's RESTCatalog on that server.
 * </pre>
 */
public final class PaimonOracle {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final BigInteger NANOS_PER_MILLI = BigInteger.valueOf(1_000_000L);

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        try {
            if (args.length == 1 && args[0].equals("serve")) serve(out);
            else run(args, out);
        } catch (Throwable t) {
            t.printStackTrace(System.err);
            System.err.println("java_oracle: " + t);
            out.flush();
            System.exit(1);
        }
        out.flush();
        System.exit(0);
    }

    static void run(String[] a, PrintStream out) throws Exception {
        if (a.length == 0) throw new IllegalArgumentException("usage: write|read|version ...");
        switch (a[0]) {
            case "rest-server": {
                if (a.length < 4) throw new IllegalArgumentException("rest-server <data dir> <warehouse name> <bearer token> [key=value...]");
                restServer(a[1], a[2], a[3], java.util.Arrays.copyOfRange(a, 4, a.length), out);
                return;
            }
            case "orc-bloom":
                if (a.length != 2) throw new IllegalArgumentException("orc-bloom <file.orc>");
                orcBloom(a[1], out);
                return;
            case "orc-hash":
                if (a.length < 2) throw new IllegalArgumentException("orc-hash bytes|long|double <value>...");
                orcHash(a[1], java.util.Arrays.copyOfRange(a, 2, a.length), out);
                return;
            case "version":
                out.println("{\"paimon\":\"" + Catalog.class.getPackage().getImplementationVersion()
                        + "\",\"java\":\"" + System.getProperty("java.version") + "\"}");
                return;
            case "write":
                if (a.length != 4) throw new IllegalArgumentException("write <warehouse> <db.table> <spec.json>");
                write(a[1], a[2], JSON.readTree(Files.readAllBytes(Path.of(a[3]))), out);
                return;
            case "batch":
                if (a.length != 2) throw new IllegalArgumentException("batch <commands.json>");
                batch(JSON.readTree(Files.readAllBytes(Path.of(a[1]))), out);
                return;
            case "create-tag":
                if (a.length != 5) throw new IllegalArgumentException("create-tag <warehouse> <db.table> <tag> <snapshot-id>");
                try (Catalog catalog = catalog(a[1])) {
                    catalog.getTable(Identifier.fromString(a[2])).createTag(a[3], Long.parseLong(a[4]));
                }
                out.println("{}");
                return;
            case "delete-tag":
                if (a.length != 4) throw new IllegalArgumentException("delete-tag <warehouse> <db.table> <tag>");
                try (Catalog catalog = catalog(a[1])) {
                    catalog.getTable(Identifier.fromString(a[2])).deleteTag(a[3]);
                }
                out.println("{}");
                return;
            case "rename-tag":
                if (a.length != 5) throw new IllegalArgumentException("rename-tag <warehouse> <db.table> <tag> <new-name>");
                try (Catalog catalog = catalog(a[1])) {
                    catalog.getTable(Identifier.fromString(a[2])).renameTag(a[3], a[4]);
                }
                out.println("{}");
                return;
            case "replace-tag":
                if (a.length != 5) throw new IllegalArgumentException("replace-tag <warehouse> <db.table> <tag> <snapshot-id>");
                try (Catalog catalog = catalog(a[1])) {
                    catalog.getTable(Identifier.fromString(a[2])).replaceTag(a[3], Long.parseLong(a[4]), null);
                }
                out.println("{}");
                return;
            case "set-options": {
                if (a.length < 4) throw new IllegalArgumentException("set-options <warehouse> <db.table> key=value...");
                List<org.apache.paimon.schema.SchemaChange> changes = new ArrayList<>();
                for (int i = 3; i < a.length; i++) {
                    int eq = a[i].indexOf('=');
                    if (eq <= 0) throw new IllegalArgumentException("not key=value: " + a[i]);
                    String key = a[i].substring(0, eq), value = a[i].substring(eq + 1);
                    changes.add(value.isEmpty() ? org.apache.paimon.schema.SchemaChange.removeOption(key) : org.apache.paimon.schema.SchemaChange.setOption(key, value));
                }
                try (Catalog catalog = catalog(a[1])) {
                    catalog.alterTable(Identifier.fromString(a[2]), changes, false);
                }
                out.println("{}");
                return;
            }
            case "alter": {
                if (a.length != 4) throw new IllegalArgumentException("alter <warehouse> <db.table> <changes.json>");
                List<org.apache.paimon.schema.SchemaChange> changes = new ArrayList<>();
                for (JsonNode c : JSON.readTree(Files.readAllBytes(Path.of(a[3])))) changes.add(schemaChange(c));
                try (Catalog catalog = catalog(a[1])) {
                    catalog.alterTable(Identifier.fromString(a[2]), changes, false);
                }
                out.println("{}");
                return;
            }
            case "commit-statistics": {
                // what Flink / Spark ANALYZE commits: a statistics file and an ANALYZE snapshot
                if (a.length != 4) throw new IllegalArgumentException("commit-statistics <warehouse> <db.table> <statistics.json>");
                try (Catalog catalog = catalog(a[1])) {
                    org.apache.paimon.table.Table t = catalog.getTable(Identifier.fromString(a[2]));
                    try (org.apache.paimon.table.sink.BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
                        commit.updateStatistics(org.apache.paimon.stats.Statistics.fromJson(new String(Files.readAllBytes(Path.of(a[3])), java.nio.charset.StandardCharsets.UTF_8)));
                    }
                }
                out.println("{}");
                return;
            }
            case "create-branch": {
                if (a.length != 4 && a.length != 5) throw new IllegalArgumentException("create-branch <warehouse> <db.table> <branch> [tag]");
                try (Catalog catalog = catalog(a[1])) {
                    Table t = catalog.getTable(Identifier.fromString(a[2]));
                    if (a.length == 5) t.createBranch(a[3], a[4]);
                    else t.createBranch(a[3]);
                }
                out.println("{}");
                return;
            }
            case "drop-branch":
                if (a.length != 4) throw new IllegalArgumentException("drop-branch <warehouse> <db.table> <branch>");
                try (Catalog catalog = catalog(a[1])) {
                    catalog.getTable(Identifier.fromString(a[2])).deleteBranch(a[3]);
                }
                out.println("{}");
                return;
            case "fast-forward":
                if (a.length != 4) throw new IllegalArgumentException("fast-forward <warehouse> <db.table> <branch>");
                try (Catalog catalog = catalog(a[1])) {
                    catalog.getTable(Identifier.fromString(a[2])).fastForward(a[3]);
                }
                out.println("{}");
                return;
            case "branches": {
                if (a.length != 3) throw new IllegalArgumentException("branches <warehouse> <db.table>");
                List<String> branches;
                try (Catalog catalog = catalog(a[1])) {
                    branches = new ArrayList<>(((org.apache.paimon.table.FileStoreTable) catalog.getTable(Identifier.fromString(a[2]))).branchManager().branches());
                }
                java.util.Collections.sort(branches);
                out.println(JSON.writeValueAsString(branches));
                return;
            }
            case "tags": {
                if (a.length != 3) throw new IllegalArgumentException("tags <warehouse> <db.table>");
                Map<String, Long> tags = new java.util.TreeMap<>();
                try (Catalog catalog = catalog(a[1])) {
                    org.apache.paimon.table.FileStoreTable t = (org.apache.paimon.table.FileStoreTable) catalog.getTable(Identifier.fromString(a[2]));
                    t.tagManager().tags().forEach((snap, names) -> names.forEach(n -> tags.put(n, snap.id())));
                }
                out.println(JSON.writeValueAsString(tags));
                return;
            }
            case "read": {
                if (a.length < 3) throw new IllegalArgumentException("read <warehouse> <db.table> [--snapshot N] [--tag name] [--option key=value]... [--sort] [--with-kind] [--filter col op json]... [--execute-filter] [--project a,b] [--splits]");
                Long snapshot = null;
                String tag = null;
                boolean sort = false, withKind = false, executeFilter = false, splitsOnly = false;
                List<String[]> filters = new ArrayList<>();
                List<String> project = null;
                Map<String, String> dynamicOptions = new java.util.LinkedHashMap<>();
                for (int i = 3; i < a.length; i++) {
                    switch (a[i]) {
                        case "--option": putOption(dynamicOptions, a[++i]); break;
                        case "--snapshot": snapshot = Long.parseLong(a[++i]); break;
                        case "--tag": tag = a[++i]; break;
                        case "--sort": sort = true; break;
                        case "--with-kind": withKind = true; break;
                        case "--execute-filter": executeFilter = true; break;
                        case "--filter-eq": filters.add(new String[] {a[++i], "=", a[++i]}); break;
                        case "--filter": filters.add(new String[] {a[++i], a[++i], a[++i]}); break;
                        case "--project": project = java.util.Arrays.asList(a[++i].split(",", -1)); break;
                        case "--splits": splitsOnly = true; break;
                        default: throw new IllegalArgumentException("unknown read option " + a[i]);
                    }
                }
                read(a[1], a[2], snapshot, tag, dynamicOptions, sort, withKind, filters, executeFilter, project, splitsOnly, out);
                return;
            }
            case "stream-read": {
                // plans a streaming scan (Java newStreamScan) N times; one JSON line per plan
                if (a.length < 4) throw new IllegalArgumentException("stream-read <warehouse> <db.table> <plans> [--option key=value]... [--restore nextSnapshot] [--notify] [--filter col op json]...");
                Map<String, String> dynamicOptions = new java.util.LinkedHashMap<>();
                Long restore = null;
                boolean notify = false;
                List<String[]> streamFilters = new ArrayList<>();
                for (int i = 4; i < a.length; i++) {
                    switch (a[i]) {
                        case "--filter": streamFilters.add(new String[] {a[++i], a[++i], a[++i]}); break;
                        case "--option": putOption(dynamicOptions, a[++i]); break;
                        case "--restore": restore = Long.parseLong(a[++i]); break;
                        case "--notify": notify = true; break;
                        default: throw new IllegalArgumentException("unknown stream-read option " + a[i]);
                    }
                }
                streamRead(a[1], a[2], Integer.parseInt(a[3]), dynamicOptions, restore, notify, streamFilters, out);
                return;
            }
            case "consumer": {
                // sets a streaming consumer's next snapshot, as a Flink job with consumer-id does
                if (a.length != 5) throw new IllegalArgumentException("consumer <warehouse> <db.table> <id> <nextSnapshot>");
                try (Catalog catalog = catalog(a[1])) {
                    org.apache.paimon.table.FileStoreTable table = (org.apache.paimon.table.FileStoreTable) catalog.getTable(Identifier.fromString(a[2]));
                    new org.apache.paimon.consumer.ConsumerManager(table.fileIO(), table.location())
                            .resetConsumer(a[3], new org.apache.paimon.consumer.Consumer(Long.parseLong(a[4])));
                }
                out.println("{\"ok\":true}");
                return;
            }
            case "expire": {
                // Java's own snapshot expiry, with explicit limits; prints the snapshot ids left
                if (a.length != 7) throw new IllegalArgumentException("expire <warehouse> <db.table> <retainMin> <retainMax> <olderThanMs> <maxDeletes>");
                try (Catalog catalog = catalog(a[1])) {
                    org.apache.paimon.table.FileStoreTable table = (org.apache.paimon.table.FileStoreTable) catalog.getTable(Identifier.fromString(a[2]));
                    int expired = table.newExpireSnapshots().config(org.apache.paimon.options.ExpireConfig.builder()
                            .snapshotRetainMin(Integer.parseInt(a[3])).snapshotRetainMax(Integer.parseInt(a[4]))
                            .snapshotTimeRetain(java.time.Duration.ofMillis(Long.parseLong(a[5])))
                            .snapshotMaxDeletes(Integer.parseInt(a[6])).build()).expire();
                    StringBuilder ids = new StringBuilder();
                    for (Iterator<Snapshot> it = table.snapshotManager().snapshots(); it.hasNext(); ) ids.append(ids.length() == 0 ? "" : ",").append(it.next().id());
                    out.println("{\"expired\":" + expired + ",\"snapshots\":[" + ids + "]}");
                }
                return;
            }
            case "expire-partitions": {
                // Java's own partition expiry (PartitionExpire, as the commit runs it, without the
                // check interval) by the table's partition.* options; prints the expired partitions
                if (a.length != 3) throw new IllegalArgumentException("expire-partitions <warehouse> <db.table>");
                try (Catalog catalog = catalog(a[1])) {
                    org.apache.paimon.table.FileStoreTable table = (org.apache.paimon.table.FileStoreTable) catalog.getTable(Identifier.fromString(a[2]));
                    org.apache.paimon.CoreOptions options = table.coreOptions();
                    org.apache.paimon.types.RowType partitionType = table.schema().logicalPartitionType();
                    org.apache.paimon.operation.PartitionExpire expire = table.store().newPartitionExpire("oracle-expire", table,
                            options.partitionExpireTime(), java.time.Duration.ZERO,
                            org.apache.paimon.partition.PartitionExpireStrategy.createPartitionExpireStrategy(options, partitionType, null, null));
                    out.println("{\"expired\":" + JSON.writeValueAsString(expire.expire(Long.MAX_VALUE)) + "}");
                }
                return;
            }
            case "sketch": {
                if (a.length != 2) throw new IllegalArgumentException("sketch <ops.json>");
                forEachOp(a[1], out, (op, sb) -> {
                    sb.append("{\"ok\":true,\"bytes\":");
                    str(sb, Base64.getEncoder().encodeToString(sketchOp(op)));
                    sb.append('}');
                });
                return;
            }
            case "hashmap": {
                if (a.length != 2) throw new IllegalArgumentException("hashmap <cases.json>");
                forEachOp(a[1], out, (c, sb) -> {
                    String type = c.get("type").asText();
                    boolean computeIfAbsent = "computeIfAbsent".equals(c.get("insertion").asText());
                    java.util.HashMap<Object, Integer> map = new java.util.HashMap<>();
                    int i = 0;
                    for (JsonNode op : c.get("ops")) {
                        Object key = hashMapKey(type, op.get(1).isNull() ? null : op.get(1).asText());
                        final int at = i++;
                        if ("-".equals(op.get(0).asText())) map.remove(key);
                        else if (computeIfAbsent) map.computeIfAbsent(key, k -> at);
                        else if (!map.containsKey(key)) map.put(key, at);
                        else map.put(key, map.get(key)); // put of a present key: no change of shape
                    }
                    sb.append("{\"ok\":true,\"order\":[");
                    boolean first = true;
                    for (Integer v : map.values()) {
                        if (!first) sb.append(',');
                        first = false;
                        sb.append(v);
                    }
                    sb.append("]}");
                });
                return;
            }
            case "variant": {
                if (a.length != 2) throw new IllegalArgumentException("variant <ops.json>");
                forEachOp(a[1], out, PaimonOracle::variantOp);
                return;
            }
            default:
                throw new IllegalArgumentException("unknown command " + a[0]);
        }
    }

    /**
     * A key of the {@code hashmap} command as the boxed object Paimon puts in its maps: "INT" Integer, "BIGINT"
     * Long, "FLOAT" / "DOUBLE" from their bit patterns (decimal), "STRING" BinaryString, "JSTRING" java.lang.String,
     * "DECIMAL(p,s)" Decimal of an unscaled integer, "TIMESTAMP" Timestamp of "millis.nanoOfMillisecond"; null: null.
     */
    /** Appends one operation's result, a whole JSON object, to the line being built. */
    interface OpResult {
        void append(JsonNode op, StringBuilder sb) throws Exception;
    }

    /**
     * The per-operation commands (sketch, hashmap, variant): a JSON array of operations in the file,
     * one result line each; an operation that throws gives {"ok":false,"error":…} and the rest go on.
     */
    static void forEachOp(String file, PrintStream out, OpResult result) throws java.io.IOException {
        for (JsonNode op : JSON.readTree(Files.readAllBytes(Path.of(file)))) {
            StringBuilder sb = new StringBuilder();
            try {
                result.append(op, sb);
            } catch (Exception e) {
                sb.setLength(0);
                sb.append("{\"ok\":false,\"error\":");
                str(sb, e.toString());
                sb.append('}');
            }
            out.println(sb);
        }
    }

    static Object hashMapKey(String type, String v) {
        if (v == null) return null;
        if (type.startsWith("DECIMAL(")) {
            String[] ps = type.substring(8, type.length() - 1).split(",");
            int p = Integer.parseInt(ps[0].trim()), sc = Integer.parseInt(ps[1].trim());
            return Decimal.fromBigDecimal(new BigDecimal(new BigInteger(v), sc), p, sc);
        }
        switch (type) {
            case "INT": return Integer.valueOf(v);
            case "BIGINT": return Long.valueOf(v);
            case "FLOAT": return Float.intBitsToFloat(Integer.parseInt(v));
            case "DOUBLE": return Double.longBitsToDouble(Long.parseLong(v));
            case "STRING": return BinaryString.fromString(v);
            case "JSTRING": return v;
            case "TIMESTAMP": {
                int dot = v.indexOf('.');
                return Timestamp.fromEpochMillis(Long.parseLong(v.substring(0, dot)), Integer.parseInt(v.substring(dot + 1)));
            }
            default: throw new IllegalArgumentException("hashmap key type " + type);
        }
    }

    /**
     * One operation of the {@code variant} command: {"fromJson": text} is GenericVariant.fromJson,
     * printed as {"ok":true,"value":base64,"metadata":base64,"json":toJson()}; {"value":base64,
     * "metadata":base64} prints {"ok":true,"json":toJson()} of those bytes (toJson in UTC).
     */
    static void variantOp(JsonNode op, StringBuilder sb) {
        if (op.has("fromJson")) {
            GenericVariant v = GenericVariant.fromJson(op.get("fromJson").asText());
            sb.append("{\"ok\":true,\"value\":");
            str(sb, Base64.getEncoder().encodeToString(v.value()));
            sb.append(",\"metadata\":");
            str(sb, Base64.getEncoder().encodeToString(v.metadata()));
            sb.append(",\"json\":");
            str(sb, v.toJson());
        } else {
            GenericVariant v = new GenericVariant(Base64.getDecoder().decode(op.get("value").asText()), Base64.getDecoder().decode(op.get("metadata").asText()));
            sb.append("{\"ok\":true,\"json\":");
            str(sb, v.toJson());
        }
        sb.append('}');
    }

    /**
     * One operation of the {@code sketch} command:
     * {"op":"theta","values":[long...],"k":4096,"p":1.0,"family":"QUICKSELECT"|"ALPHA","form":"ordered"|"unordered"|"compressed"|"update"}
     * builds a theta sketch (UpdateSketch.builder(); values as update(long); form: compact ordered / unordered
     * toByteArray, toByteArrayCompressed, or the update sketch's own hash-table image); {"op":"theta-of","values":[int...]}
     * is Paimon's ThetaSketch.sketchOf; {"op":"theta-union","a":base64,"b":base64} is Paimon's ThetaSketch.union;
     * {"op":"theta-fold","items":[base64...]} folds them with it, left to right. HLL: {"op":"hll","values":[long...],
     * "lgK":12,"type":"HLL_4"|"HLL_6"|"HLL_8","updatable":false} (new HllSketch(lgK, type), update(long), compact or
     * updatable image), {"op":"hll-of","values":[int...]} (Paimon's HllSketchUtil.sketchOf) and {"op":"hll-fold",
     * "items":[base64...]} (HllSketchUtil.union, left to right). rbm64: {"op":"rbm64","adds":["<long>" | ["<start>","<end>"]...],
     * "raw":false} (a Roaring64Bitmap fed addLong / addRange(start, end) in order; serialized as Paimon's
     * RoaringBitmap64.serialize, run-optimized, or with "raw":true without runOptimize) and {"op":"rbm64-fold",
     * "items":[base64...]} (one FieldRoaringBitmap64Agg's agg, left to right, as a merge reuses it).
     */
    static byte[] sketchOp(JsonNode op) {
        switch (op.get("op").asText()) {
            case "theta-of": {
                int[] values = new int[op.get("values").size()];
                for (int i = 0; i < values.length; i++) values[i] = op.get("values").get(i).asInt();
                return org.apache.paimon.utils.ThetaSketch.sketchOf(values);
            }
            case "theta": {
                org.apache.paimon.shade.org.apache.datasketches.theta.UpdateSketchBuilder b =
                        org.apache.paimon.shade.org.apache.datasketches.theta.UpdateSketch.builder()
                                .setNominalEntries(op.path("k").asInt(4096))
                                .setP((float) op.path("p").asDouble(1.0))
                                .setFamily(org.apache.paimon.shade.org.apache.datasketches.common.Family.valueOf(op.path("family").asText("QUICKSELECT")));
                org.apache.paimon.shade.org.apache.datasketches.theta.UpdateSketch sk = b.build();
                for (JsonNode v : op.get("values")) sk.update(v.asLong());
                switch (op.path("form").asText("ordered")) {
                    case "ordered": return sk.compact(true, null).toByteArray();
                    case "unordered": return sk.compact(false, null).toByteArray();
                    case "compressed": return sk.compact(true, null).toByteArrayCompressed();
                    case "update": return sk.toByteArray();
                    default: throw new IllegalArgumentException("unknown form " + op.get("form"));
                }
            }
            case "theta-union":
                return org.apache.paimon.utils.ThetaSketch.union(Base64.getDecoder().decode(op.get("a").asText()), Base64.getDecoder().decode(op.get("b").asText()));
            case "theta-fold":
                return fold(op.get("items"), org.apache.paimon.utils.ThetaSketch::union);
            case "hll-of": {
                int[] values = new int[op.get("values").size()];
                for (int i = 0; i < values.length; i++) values[i] = op.get("values").get(i).asInt();
                return org.apache.paimon.utils.HllSketchUtil.sketchOf(values);
            }
            case "hll": {
                org.apache.paimon.shade.org.apache.datasketches.hll.HllSketch sk = new org.apache.paimon.shade.org.apache.datasketches.hll.HllSketch(
                        op.path("lgK").asInt(12), org.apache.paimon.shade.org.apache.datasketches.hll.TgtHllType.valueOf(op.path("type").asText("HLL_4")));
                for (JsonNode v : op.get("values")) sk.update(v.asLong());
                return op.path("updatable").asBoolean(false) ? sk.toUpdatableByteArray() : sk.toCompactByteArray();
            }
            case "hll-fold":
                return fold(op.get("items"), org.apache.paimon.utils.HllSketchUtil::union);
            case "rbm64": {
                org.apache.paimon.shade.org.roaringbitmap.longlong.Roaring64Bitmap b = new org.apache.paimon.shade.org.roaringbitmap.longlong.Roaring64Bitmap();
                for (JsonNode v : op.get("adds")) {
                    if (v.isArray()) b.addRange(Long.parseLong(v.get(0).asText()), Long.parseLong(v.get(1).asText()));
                    else b.addLong(Long.parseLong(v.asText()));
                }
                if (!op.path("raw").asBoolean(false)) b.runOptimize();
                try (java.io.ByteArrayOutputStream bos = new java.io.ByteArrayOutputStream();
                        java.io.DataOutputStream dos = new java.io.DataOutputStream(bos)) {
                    b.serialize(dos);
                    dos.flush();
                    return bos.toByteArray();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            case "rbm64-fold": {
                org.apache.paimon.mergetree.compact.aggregate.FieldRoaringBitmap64Agg agg =
                        new org.apache.paimon.mergetree.compact.aggregate.FieldRoaringBitmap64Agg("f", new org.apache.paimon.types.VarBinaryType());
                return fold(op.get("items"), (x, y) -> (byte[]) agg.agg(x, y));
            }
            default:
                throw new IllegalArgumentException("unknown sketch op " + op);
        }
    }

    /** FieldThetaSketchAgg's / FieldHllSketchAgg's fold of a key's base64 values: union(union(union(v0, v1), v2), ...). */
    static byte[] fold(JsonNode items, java.util.function.BinaryOperator<byte[]> union) {
        byte[] acc = null;
        for (JsonNode v : items) {
            byte[] in = Base64.getDecoder().decode(v.asText());
            acc = acc == null ? in : union.apply(acc, in);
        }
        return acc;
    }

    /**
     * Runs every command of a JSON array of argument lists in this JVM, in order, and prints one
     * line per command: {"ok":true,"out":"<its stdout>"} or {"ok":false,"error":"<message>"}.
     * Saves the JVM start-up (seconds) per command.
     */
    /** One change of paimon-rt's `SchemaChange` JSON form as Java's SchemaChange (types as in specs). */
    static org.apache.paimon.schema.SchemaChange schemaChange(JsonNode c) {
        String name = c.path("name").asText();
        switch (c.path("kind").asText()) {
            case "addColumn": {
                DataType type = new TypeParser(c.path("type").asText()).parseAll();
                return c.hasNonNull("after")
                        ? org.apache.paimon.schema.SchemaChange.addColumn(name, type, null, org.apache.paimon.schema.SchemaChange.Move.after(name, c.get("after").asText()))
                        : org.apache.paimon.schema.SchemaChange.addColumn(name, type);
            }
            case "renameColumn":
                return org.apache.paimon.schema.SchemaChange.renameColumn(name, c.path("newName").asText());
            case "dropColumn":
                return org.apache.paimon.schema.SchemaChange.dropColumn(name);
            case "updateColumnType":
                // keepNullability false: the type's nullability is the new one, as in paimon-rt
                return org.apache.paimon.schema.SchemaChange.updateColumnType(name, new TypeParser(c.path("type").asText()).parseAll(), false);
            case "setOption":
                return org.apache.paimon.schema.SchemaChange.setOption(c.path("key").asText(), c.path("value").asText());
            case "removeOption":
                return org.apache.paimon.schema.SchemaChange.removeOption(c.path("key").asText());
            default:
                throw new IllegalArgumentException("unknown schema change " + c);
        }
    }

    /**
     * Serves commands until stdin ends: each input line a JSON argument list, each answered by one
     * line as {@link #batch} answers (the error with what the command printed to stderr, as a
     * one-command process would report it). The tests' harness keeps one such JVM per test worker
     * for commands on local warehouses, so each command does not pay a JVM start (1-2 s).
     */
    static void serve(PrintStream out) throws java.io.IOException {
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
        PrintStream stderr = System.err;
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            StringBuilder sb = new StringBuilder();
            PrintStream errStream = new PrintStream(err, true, "UTF-8");
            System.setErr(errStream);
            try {
                List<String> args = strings(JSON.readTree(line));
                if (!args.isEmpty() && (args.get(0).equals("serve") || args.get(0).equals("rest-server"))) throw new IllegalArgumentException("not served: " + args.get(0));
                PrintStream ps = new PrintStream(buf, false, "UTF-8");
                run(args.toArray(new String[0]), ps);
                ps.flush();
                sb.append("{\"ok\":true,\"out\":");
                str(sb, buf.toString(java.nio.charset.StandardCharsets.UTF_8));
            } catch (Throwable t) {
                t.printStackTrace(errStream);
                errStream.println("java_oracle: " + t);
                sb.setLength(0);
                sb.append("{\"ok\":false,\"error\":");
                str(sb, err.toString(java.nio.charset.StandardCharsets.UTF_8));
            } finally {
                errStream.flush();
                System.setErr(stderr);
            }
            out.println(sb.append('}'));
            out.flush();
        }
    }

    static void batch(JsonNode commands, PrintStream out) {
        for (JsonNode cmd : commands) {
            List<String> args = strings(cmd);
            java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
            StringBuilder sb = new StringBuilder();
            try {
                if (!args.isEmpty() && args.get(0).equals("batch")) throw new IllegalArgumentException("nested batch");
                PrintStream ps = new PrintStream(buf, false, "UTF-8");
                run(args.toArray(new String[0]), ps);
                ps.flush();
                sb.append("{\"ok\":true,\"out\":");
                str(sb, buf.toString(java.nio.charset.StandardCharsets.UTF_8));
            } catch (Throwable t) {
                t.printStackTrace(System.err);
                sb.setLength(0);
                sb.append("{\"ok\":false,\"error\":");
                str(sb, String.join(" ", args) + ": " + t);
            }
            out.println(sb.append('}'));
            out.flush();
        }
    }

    /** A `warehouse` argument naming a REST catalog instead of a directory (see {@link #catalog}). */
    static final String REST_PREFIX = "rest:";

    /**
     * Serves a REST catalog (Java's RESTCatalogServer from paimon-core's tests jar: metadata in memory,
     * tables under {@code dataDir} through a file-system catalog, commits through its {@code commit}
     * endpoint) with prefix {@code paimon}, bearer-token auth and {@code extraDefaults} (key=value) as
     * further config defaults; prints its URL, then serves until stdin closes, running the commands
     * read from stdin (see the class comment). An {@code s3://} data dir: the server's file-system
     * catalog works on S3 (paimon-s3 with the AWS_* environment, as {@link #s3Options}); Java's server
     * hard-wires a LocalFileIO catalog, so that catalog is replaced (reflection) by one on S3.
     */
    static void restServer(String dataDir, String warehouseName, String token, String[] extraDefaults, PrintStream out) throws Exception {
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("prefix", "paimon");
        defaults.put("warehouse", warehouseName);
        defaults.put("header.x-oracle", "paimon-java");
        for (String kv : extraDefaults) {
            int eq = kv.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("rest-server config default must be key=value, got " + kv);
            defaults.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        boolean onS3 = dataDir.startsWith("s3://");
        String serverDir = onS3 ? Files.createTempDirectory("paimon-oracle-rest").toString() : dataDir;
        org.apache.paimon.rest.RESTCatalogServer server = new org.apache.paimon.rest.RESTCatalogServer(
                serverDir, new org.apache.paimon.rest.auth.BearTokenAuthProvider(token),
                new org.apache.paimon.rest.responses.ConfigResponse(defaults, new LinkedHashMap<>()), warehouseName);
        if (onS3) {
            Options o = new Options();
            o.set("warehouse", dataDir);
            s3Options(o);
            CatalogContext context = CatalogContext.create(o);
            org.apache.paimon.fs.Path warehouse = new org.apache.paimon.fs.Path(dataDir);
            java.lang.reflect.Field field = org.apache.paimon.rest.RESTCatalogServer.class.getDeclaredField("catalog");
            field.setAccessible(true);
            field.set(server, new org.apache.paimon.rest.RESTFileSystemCatalog(org.apache.paimon.fs.FileIO.get(warehouse, context), warehouse, context));
        }
        server.start();
        out.println(server.getUrl());
        out.flush();
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] c = line.trim().split(" ");
            if (c.length >= 3 && c[0].equals("data-token")) {
                Map<String, String> credentials = new LinkedHashMap<>();
                for (int i = 3; i < c.length; i++) {
                    int eq = c[i].indexOf('=');
                    credentials.put(c[i].substring(0, eq), c[i].substring(eq + 1));
                }
                server.setDataToken(Identifier.fromString(c[1]), new org.apache.paimon.rest.RESTToken(credentials, Long.parseLong(c[2])));
                out.println("ok");
            } else {
                out.println("error: unknown command " + line);
            }
            out.flush();
        }
        server.shutdown();
    }

    static Catalog catalog(String warehouse) {
        Options o = new Options();
        if (warehouse.startsWith(REST_PREFIX)) {
            // rest:<uri>?warehouse=<name>&token=<bearer token>: Java's RESTCatalog (metastore=rest)
            String spec = warehouse.substring(REST_PREFIX.length());
            int q = spec.indexOf('?');
            if (q < 0) throw new IllegalArgumentException("rest:<uri>?warehouse=<name>&token=<token>, got " + warehouse);
            o.set("metastore", "rest");
            o.set("uri", spec.substring(0, q));
            o.set("token.provider", "bear");
            for (String kv : spec.substring(q + 1).split("&")) {
                int eq = kv.indexOf('=');
                o.set(java.net.URLDecoder.decode(kv.substring(0, eq), java.nio.charset.StandardCharsets.UTF_8),
                        java.net.URLDecoder.decode(kv.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8));
            }
            s3Options(o); // for tables on S3 (a server's data tokens override the credentials)
            return CatalogFactory.createCatalog(CatalogContext.create(o));
        }
        o.set("warehouse", warehouse);
        o.set("cache-enabled", "false");
        if (warehouse.startsWith("s3://")) s3Options(o); // paimon-s3 registers s3:// only
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /**
     * Paimon's S3 filesystem (paimon-s3) options from the standard AWS variables, the same ones
     * paimon-rt reads: endpoint, credentials, session token, region. Path-style addressing, because
     * test servers (Ceph RGW on 127.0.0.1) have no per-bucket host names.
     */
    static void s3Options(Options o) {
        String endpoint = System.getenv("AWS_ENDPOINT_URL");
        if (endpoint != null && !endpoint.isEmpty()) {
            o.set("s3.endpoint", endpoint);
            o.set("s3.path.style.access", "true");
            if (endpoint.startsWith("http://")) {
                o.set("s3.connection.ssl.enabled", "false");
                // Over plain HTTP the AWS SDK v2 signs bodies in aws-chunked encoding, and Ceph RGW
                // 16 rejects that for empty bodies (S3A's directory markers) with
                // XAmzContentSHA256Mismatch; this signer sends whole bodies instead.
                o.set("s3.signing-algorithm", "AWS4UnsignedPayloadSignerType");
            }
        }
        String accessKey = System.getenv("AWS_ACCESS_KEY_ID");
        String secretKey = System.getenv("AWS_SECRET_ACCESS_KEY");
        if (accessKey != null && secretKey != null) {
            o.set("s3.access-key", accessKey);
            o.set("s3.secret-key", secretKey);
        }
        String sessionToken = System.getenv("AWS_SESSION_TOKEN");
        if (sessionToken != null && !sessionToken.isEmpty()) {
            o.set("s3.session.token", sessionToken); // S3A's default provider chain picks it up
        }
        String region = System.getenv("AWS_REGION");
        if (region != null && !region.isEmpty()) o.set("s3.endpoint.region", region);
    }

    // ------------------------------------------------------------------------------------------
    // write

    static void write(String warehouse, String ident, JsonNode spec, PrintStream out) throws Exception {
        Identifier id = Identifier.fromString(ident);
        Path tmp = Files.createTempDirectory("paimon-oracle-io");
        List<Long> snapshots = new ArrayList<>();
        try (Catalog catalog = catalog(warehouse)) {
            catalog.createDatabase(id.getDatabaseName(), true);
            if (spec.has("fields")) {
                catalog.createTable(id, schema(spec), spec.path("ignoreIfExists").asBoolean(false));
            }
            Table table = catalog.getTable(id);
            int n = 0;
            for (JsonNode commit : spec.path("commits")) {
                if (commit.has("updateColumns") || commit.path("dataEvolutionCompact").asBoolean(false)) {
                    try {
                        if (commit.has("updateColumns")) updateColumns((FileStoreTable) table, commit, tmp);
                        else dataEvolutionCompact((FileStoreTable) table);
                    } catch (Exception e) {
                        throw new RuntimeException("commit #" + n + " of " + ident + ": " + e, e);
                    }
                    table = catalog.getTable(id);
                    snapshots.add(table.latestSnapshot().map(Snapshot::id).orElse(null));
                    n++;
                    continue;
                }
                JsonNode rows = commit.isArray() ? commit : commit.path("rows");
                BatchWriteBuilder wb = table.newBatchWriteBuilder();
                JsonNode ow = commit.path("overwrite");
                if (ow.isObject()) {
                    Map<String, String> part = new LinkedHashMap<>();
                    ow.fields().forEachRemaining(e -> part.put(e.getKey(), e.getValue().asText()));
                    wb = wb.withOverwrite(part);
                } else if (ow.asBoolean(false)) {
                    wb = wb.withOverwrite();
                }
                RowType rt = table.rowType();
                try (IOManager io = IOManager.create(tmp.toString());
                     BatchTableWrite w = wb.newWrite().withIOManager(io);
                     BatchTableCommit c = wb.newCommit()) {
                    BucketAssigner assigner = dynamicBucketAssigner(table, ow.isObject() || ow.asBoolean(false));
                    if (table instanceof FileStoreTable && ((FileStoreTable) table).bucketMode() == BucketMode.KEY_DYNAMIC) {
                        List<InternalRow> input = new ArrayList<>();
                        for (JsonNode row : rows) input.add(toRow(row, rt));
                        crossPartitionWrite((FileStoreTable) table, input, w);
                    } else if (assigner == null) {
                        for (JsonNode row : rows) w.write(toRow(row, rt));
                    } else {
                        // BatchTableWrite.write(row) throws for dynamic-bucket tables: assign as Flink's
                        // HashBucketAssignerOperator with one assigner, then write(row, bucket)
                        RowPartitionKeyExtractor extractor = new RowPartitionKeyExtractor(((FileStoreTable) table).schema());
                        for (JsonNode row : rows) {
                            InternalRow r = toRow(row, rt);
                            w.write(r, assigner.assign(extractor.partition(r), extractor.trimmedPrimaryKey(r).hashCode()));
                        }
                    }
                    if (commit.path("compact").asBoolean(false)) {
                        Set<String> seen = new HashSet<>();
                        for (Split s : table.newReadBuilder().newScan().plan().splits()) {
                            DataSplit ds = (DataSplit) s;
                            if (seen.add(ds.partition().toString() + "/" + ds.bucket())) {
                                w.compact(ds.partition(), ds.bucket(), true);
                            }
                        }
                    }
                    c.commit(w.prepareCommit());
                } catch (Exception e) {
                    throw new RuntimeException("commit #" + n + " of " + ident + ": " + e, e);
                }
                table = catalog.getTable(id);
                snapshots.add(table.latestSnapshot().map(Snapshot::id).orElse(null));
                n++;
            }
        } finally {
            deleteRecursively(tmp.toFile());
        }
        StringBuilder sb = new StringBuilder("{\"table\":");
        str(sb, ident);
        sb.append(",\"snapshots\":[");
        for (int i = 0; i < snapshots.size(); i++) {
            if (i > 0) sb.append(',');
            sb.append(snapshots.get(i));
        }
        out.println(sb.append("]}"));
    }

    /**
     * Data-evolution tables: new values of some columns (`updateColumns`) for whole existing row
     * ranges (`ranges`: `firstRowId` of a live file and one row per row id of it), as Spark's
     * DataEvolutionTableDataWrite writes them for MERGE INTO: a write with `withWriteType` of the
     * columns, one file a range, `assignFirstRowId`, committed as appended files.
     */
    static void updateColumns(FileStoreTable table, JsonNode commit, Path tmp) throws Exception {
        List<String> cols = new ArrayList<>();
        commit.path("updateColumns").forEach(c -> cols.add(c.asText()));
        table = table.copy(Collections.singletonMap("target-file-size", "99999 G")); // no rolling
        RowType writeType = table.rowType().project(cols);
        Map<Long, org.apache.paimon.data.BinaryRow> partitions = new java.util.HashMap<>();
        for (Split s : table.newReadBuilder().newScan().plan().splits()) {
            DataSplit ds = (DataSplit) s;
            for (org.apache.paimon.io.DataFileMeta f : ds.dataFiles()) partitions.put(f.firstRowId(), ds.partition());
        }
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        List<org.apache.paimon.table.sink.CommitMessage> messages = new ArrayList<>();
        try (IOManager io = IOManager.create(tmp.toString())) {
            for (JsonNode range : commit.path("ranges")) {
                long first = range.path("firstRowId").asLong();
                org.apache.paimon.data.BinaryRow partition = partitions.get(first);
                if (partition == null) throw new IllegalArgumentException("no live file with first row id " + first);
                org.apache.paimon.table.sink.TableWriteImpl<?> w = (org.apache.paimon.table.sink.TableWriteImpl<?>) wb.newWrite().withIOManager(io);
                w.withWriteType(writeType);
                @SuppressWarnings("unchecked")
                org.apache.paimon.operation.AbstractFileStoreWrite<InternalRow> store = (org.apache.paimon.operation.AbstractFileStoreWrite<InternalRow>) w.getWrite();
                org.apache.paimon.utils.RecordWriter<InternalRow> writer = store.createWriter(partition, 0);
                for (JsonNode row : range.path("rows")) writer.write(toRow(row, writeType));
                List<org.apache.paimon.io.DataFileMeta> files = writer.prepareCommit(false).newFilesIncrement().newFiles();
                if (files.size() != 1) throw new IllegalStateException("expected one file, got " + files.size());
                messages.add(new org.apache.paimon.table.sink.CommitMessageImpl(partition, 0, null,
                        new org.apache.paimon.io.DataIncrement(Collections.singletonList(files.get(0).assignFirstRowId(first)), Collections.emptyList(), Collections.emptyList()),
                        org.apache.paimon.io.CompactIncrement.emptyIncrement()));
                writer.close();
                w.close();
            }
        }
        try (BatchTableCommit c = wb.newCommit()) {
            c.commit(messages);
        }
    }

    /** Data-evolution tables: Java's DataEvolutionCompactCoordinator plan, each task's doCompact, one commit. */
    static void dataEvolutionCompact(FileStoreTable table) throws Exception {
        List<org.apache.paimon.table.sink.CommitMessage> messages = new ArrayList<>();
        for (org.apache.paimon.append.dataevolution.DataEvolutionCompactTask task : new org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator(table, false, false).plan()) {
            messages.add(task.doCompact(table, "oracle"));
        }
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableCommit c = wb.newCommit()) {
            c.commit(messages);
        }
    }

    /**
     * Cross-partition upsert tables (BucketMode.KEY_DYNAMIC): BatchTableWrite.write(row) throws for
     * them; Flink and Spark route rows through GlobalIndexAssigner, whose key index is a RocksDB
     * state (not in this oracle's class path). This is its processInput with one assigner over an
     * in-memory map instead: the index bootstrapped by IndexBootstrap, buckets from the
     * crosspartition BucketAssigner, a key found in another partition handled by the merge
     * engine's ExistingProcessor, then write(row, bucket).
     */
    static void crossPartitionWrite(FileStoreTable t, List<InternalRow> rows, BatchTableWrite w) throws Exception {
        org.apache.paimon.utils.IDMapping<org.apache.paimon.data.BinaryRow> parts = new org.apache.paimon.utils.IDMapping<>(org.apache.paimon.data.BinaryRow::copy);
        Map<org.apache.paimon.data.BinaryRow, int[]> index = new java.util.HashMap<>();
        org.apache.paimon.crosspartition.BucketAssigner buckets = new org.apache.paimon.crosspartition.BucketAssigner();
        org.apache.paimon.crosspartition.KeyPartPartitionKeyExtractor keyPart = new org.apache.paimon.crosspartition.KeyPartPartitionKeyExtractor(t.schema());
        int bucketIndex = org.apache.paimon.crosspartition.IndexBootstrap.bootstrapType(t.schema()).getFieldCount() - 1;
        try (RecordReader<InternalRow> reader = new org.apache.paimon.crosspartition.IndexBootstrap(t).bootstrap(1, 0)) {
            reader.forEachRemaining(r -> {
                org.apache.paimon.data.BinaryRow part = keyPart.partition(r);
                int bucket = r.getInt(bucketIndex);
                buckets.bootstrapBucket(part, bucket);
                index.put(keyPart.trimmedPrimaryKey(r).copy(), new int[] {parts.index(part), bucket});
            });
        }
        java.util.function.BiConsumer<InternalRow, Integer> collect = (row, bucket) -> {
            try {
                w.write(row, bucket);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        };
        org.apache.paimon.crosspartition.ExistingProcessor existing = org.apache.paimon.crosspartition.ExistingProcessor.create(
                t.coreOptions().mergeEngine(), new org.apache.paimon.utils.ProjectToRowFunction(t.rowType(), t.partitionKeys()), buckets, collect);
        org.apache.paimon.table.sink.RowPartitionAllPrimaryKeyExtractor extractor = new org.apache.paimon.table.sink.RowPartitionAllPrimaryKeyExtractor(t.schema());
        int target = (int) t.coreOptions().dynamicBucketTargetRowNum();
        for (InternalRow value : rows) {
            org.apache.paimon.data.BinaryRow partition = extractor.partition(value);
            org.apache.paimon.data.BinaryRow key = extractor.trimmedPrimaryKey(value).copy();
            int partId = parts.index(partition);
            int[] previous = index.get(key);
            if (previous != null && previous[0] == partId) {
                collect.accept(value, previous[1]);
                continue;
            }
            if (previous != null && !existing.processExists(value, parts.get(previous[0]), previous[1])) continue;
            int bucket = buckets.assignBucket(partition, b -> true, target);
            index.put(key, new int[] {partId, bucket});
            collect.accept(value, bucket);
        }
    }

    /**
     * Dynamic-bucket (bucket = -1) primary-key tables: the bucket assigner Flink uses with one
     * assigner (numChannels 1, numAssigners 1, assignId 0): HashBucketAssigner over the table's
     * HASH indexes, SimpleHashBucketAssigner (empty index) for an overwrite. Null for other tables.
     */
    static BucketAssigner dynamicBucketAssigner(Table table, boolean overwrite) {
        if (!(table instanceof FileStoreTable)) return null;
        FileStoreTable t = (FileStoreTable) table;
        if (t.bucketMode() != BucketMode.HASH_DYNAMIC) return null;
        long target = t.coreOptions().dynamicBucketTargetRowNum();
        Integer maxBuckets = t.coreOptions().dynamicBucketMaxBuckets();
        if (overwrite) return new SimpleHashBucketAssigner(1, 0, target, maxBuckets);
        return new HashBucketAssigner(t.snapshotManager(), "oracle", t.store().newIndexFileHandler(), 1, 1, 0, target, maxBuckets);
    }

    static Schema schema(JsonNode spec) {
        Schema.Builder b = Schema.newBuilder();
        for (JsonNode f : spec.path("fields")) {
            JsonNode t = f.path("type");
            DataType type = t.isTextual() ? new TypeParser(t.asText()).parseAll() : DataTypeJsonParser.parseDataType(t);
            String desc = f.hasNonNull("description") ? f.get("description").asText() : null;
            b.column(f.path("name").asText(), type, desc);
        }
        List<String> pk = strings(spec.path("primaryKeys"));
        List<String> part = strings(spec.path("partitionKeys"));
        if (!part.isEmpty()) b.partitionKeys(part);
        if (!pk.isEmpty()) b.primaryKey(pk);
        spec.path("options").fields().forEachRemaining(e -> b.option(e.getKey(), e.getValue().asText()));
        if (spec.hasNonNull("comment")) b.comment(spec.get("comment").asText());
        return b.build();
    }

    static List<String> strings(JsonNode arr) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : arr) out.add(n.asText());
        return out;
    }

    static InternalRow toRow(JsonNode row, RowType rt) {
        GenericRow r = new GenericRow(rt.getFieldCount());
        Iterator<String> names = row.fieldNames();
        Set<String> known = new HashSet<>(rt.getFieldNames());
        while (names.hasNext()) {
            String n = names.next();
            if (!n.equals("_kind") && !known.contains(n)) throw new IllegalArgumentException("unknown column " + n + " in " + row);
        }
        for (int i = 0; i < rt.getFieldCount(); i++) {
            DataField f = rt.getFields().get(i);
            r.setField(i, toInternal(row.get(f.name()), f.type()));
        }
        if (row.hasNonNull("_kind")) r.setRowKind(RowKind.fromShortString(row.get("_kind").asText()));
        return r;
    }

    static Object toInternal(JsonNode v, DataType t) {
        if (v == null || v.isNull()) return null;
        switch (t.getTypeRoot()) {
            case BOOLEAN: return v.asBoolean();
            case TINYINT: return (byte) v.asInt();
            case SMALLINT: return (short) v.asInt();
            case INTEGER: return v.isTextual() ? Integer.parseInt(v.asText()) : v.intValue();
            case BIGINT: return Long.parseLong(v.asText());
            case FLOAT: return v.isTextual() ? Float.parseFloat(v.asText()) : (float) v.doubleValue();
            case DOUBLE: return v.isTextual() ? Double.parseDouble(v.asText()) : v.doubleValue();
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                return Decimal.fromBigDecimal(new BigDecimal(v.asText()), d.getPrecision(), d.getScale());
            }
            case CHAR: case VARCHAR: return BinaryString.fromString(v.asText());
            case BINARY: case VARBINARY: return Base64.getDecoder().decode(v.asText());
            case BLOB: {
                // base64 of the bytes, or of a serialized BlobDescriptor (descriptor fields): a reference to them
                byte[] bytes = Base64.getDecoder().decode(v.asText());
                if (org.apache.paimon.data.BlobDescriptor.isBlobDescriptor(bytes)) {
                    return org.apache.paimon.data.Blob.fromDescriptor(
                            org.apache.paimon.utils.UriReader.fromFile(org.apache.paimon.fs.local.LocalFileIO.create()),
                            org.apache.paimon.data.BlobDescriptor.deserialize(bytes));
                }
                return new org.apache.paimon.data.BlobData(bytes);
            }
            case DATE: return v.isTextual() ? (int) LocalDate.parse(v.asText()).toEpochDay() : v.intValue();
            case TIME_WITHOUT_TIME_ZONE: return v.intValue();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                BigInteger[] qr = divFloor(new BigInteger(v.asText()), NANOS_PER_MILLI);
                return Timestamp.fromEpochMillis(qr[0].longValueExact(), qr[1].intValue());
            }
            case ARRAY: {
                DataType et = ((ArrayType) t).getElementType();
                Object[] arr = new Object[v.size()];
                for (int i = 0; i < v.size(); i++) arr[i] = toInternal(v.get(i), et);
                return new GenericArray(arr);
            }
            case MULTISET: case MAP: {
                DataType kt = t instanceof MapType ? ((MapType) t).getKeyType() : ((MultisetType) t).getElementType();
                DataType vt = t instanceof MapType ? ((MapType) t).getValueType() : DataTypes.INT().notNull();
                Map<Object, Object> m = new LinkedHashMap<>();
                for (JsonNode pair : v) m.put(toInternal(pair.get(0), kt), toInternal(pair.get(1), vt));
                return new GenericMap(m);
            }
            case ROW: {
                RowType rt = (RowType) t;
                GenericRow r = new GenericRow(rt.getFieldCount());
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    r.setField(i, toInternal(v.get(rt.getFields().get(i).name()), rt.getTypeAt(i)));
                }
                return r;
            }
            case VARIANT:
                // a JSON text (GenericVariant.fromJson) or {"value": base64, "metadata": base64}
                if (v.isTextual()) return GenericVariant.fromJson(v.asText());
                return new GenericVariant(Base64.getDecoder().decode(v.get("value").asText()), Base64.getDecoder().decode(v.get("metadata").asText()));
            default: throw new IllegalArgumentException("unsupported type " + t);
        }
    }

    static BigInteger[] divFloor(BigInteger a, BigInteger b) {
        BigInteger[] qr = a.divideAndRemainder(b);
        if (qr[1].signum() < 0) {
            qr[0] = qr[0].subtract(BigInteger.ONE);
            qr[1] = qr[1].add(b);
        }
        return qr;
    }

    // ------------------------------------------------------------------------------------------
    // read

    /**
     * Reads rows; each `filters` entry {column, op, JSON value} adds `column op value` to the filter
     * pushed to the scan and reader (Java then skips files by statistics and file indexes, and
     * may still return other rows of the files it reads).
     */
    /** The table read has blob-as-descriptor=true: BLOB values print as their serialized BlobDescriptor. */
    static boolean BLOB_AS_DESCRIPTOR = false;

    static void read(String warehouse, String ident, Long snapshot, String tag, Map<String, String> dynamicOptions, boolean sort, boolean withKind, List<String[]> filters, boolean executeFilter, List<String> project, boolean splitsOnly, PrintStream out) throws Exception {
        List<String> lines = new ArrayList<>();
        try (Catalog catalog = catalog(warehouse)) {
            Table table = catalog.getTable(Identifier.fromString(ident));
            if (snapshot != null) table = table.copy(Collections.singletonMap("scan.snapshot-id", snapshot.toString()));
            if (tag != null) table = table.copy(Collections.singletonMap("scan.tag-name", tag));
            if (!dynamicOptions.isEmpty()) table = table.copy(dynamicOptions);
            BLOB_AS_DESCRIPTOR = "true".equalsIgnoreCase(table.options().get("blob-as-descriptor"));
            RowType full = table.rowType();
            RowType rt = project == null ? full : full.project(project);
            ReadBuilder rb = table.newReadBuilder();
            if (!filters.isEmpty()) rb = rb.withFilter(predicateOf(full, filters));
            if (project != null) {
                // --project a,b: ReadBuilder.withProjection, the rows printed with those columns
                int[] idx = project.stream().mapToInt(full::getFieldIndex).toArray();
                for (int k = 0; k < idx.length; k++) if (idx[k] < 0) throw new IllegalArgumentException("unknown projected column " + project.get(k));
                rb = rb.withProjection(idx);
            }
            List<Split> splits = rb.newScan().plan().splits();
            if (splitsOnly) {
                // --splits: the plan, not rows: one line per data split, {"files":[its data file names, in order]}
                for (Split s : splits) {
                    List<String> names = new ArrayList<>();
                    for (org.apache.paimon.io.DataFileMeta f : ((DataSplit) s).dataFiles()) names.add(f.fileName());
                    out.println(JSON.writeValueAsString(Collections.singletonMap("files", names)));
                }
                return;
            }
            org.apache.paimon.table.source.TableRead tableRead = rb.newRead();
            if (executeFilter) tableRead = tableRead.executeFilter();
            RecordReader<InternalRow> reader = tableRead.createReader(splits);
            StringBuilder sb = new StringBuilder();
            reader.forEachRemaining(row -> {   // rows may be reused: serialize at once
                sb.setLength(0);
                sb.append('{');
                if (withKind) sb.append("\"_kind\":\"").append(row.getRowKind().shortString()).append("\",");
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    if (i > 0) sb.append(',');
                    str(sb, rt.getFieldNames().get(i));
                    sb.append(':');
                    DataType t = rt.getTypeAt(i);
                    val(sb, InternalRow.createFieldGetter(t, i).getFieldOrNull(row), t);
                }
                lines.add(sb.append('}').toString());
            });
        }
        if (sort) {
            Map<String, List<String>> byKey = new TreeMap<>();
            for (String l : lines) byKey.computeIfAbsent(sortKey(l), k -> new ArrayList<>()).add(l);
            lines.clear();
            byKey.values().forEach(lines::addAll);
        }
        for (String l : lines) out.println(l);
    }

    /** `filters` entries {column, op, JSON value} over `full`, and-ed. */
    static org.apache.paimon.predicate.Predicate predicateOf(RowType full, List<String[]> filters) throws Exception {
        org.apache.paimon.predicate.PredicateBuilder pb = new org.apache.paimon.predicate.PredicateBuilder(full);
        List<org.apache.paimon.predicate.Predicate> ps = new ArrayList<>();
        for (String[] e : filters) {
            int idx = full.getFieldIndex(e[0]);
            if (idx < 0) throw new IllegalArgumentException("unknown filter column " + e[0]);
            Object literal = toInternal(JSON.readTree(e[2]), full.getTypeAt(idx));
            switch (e[1]) {
                case "=": ps.add(pb.equal(idx, literal)); break;
                case "<>": ps.add(pb.notEqual(idx, literal)); break;
                case "<": ps.add(pb.lessThan(idx, literal)); break;
                case "<=": ps.add(pb.lessOrEqual(idx, literal)); break;
                case ">": ps.add(pb.greaterThan(idx, literal)); break;
                case ">=": ps.add(pb.greaterOrEqual(idx, literal)); break;
                default: throw new IllegalArgumentException("unknown filter operator " + e[1]);
            }
        }
        return org.apache.paimon.predicate.PredicateBuilder.and(ps);
    }

    /** `--option key=value`: one dynamic option. */
    static void putOption(Map<String, String> options, String kv) {
        int eq = kv.indexOf('=');
        if (eq <= 0) throw new IllegalArgumentException("--option needs key=value, got " + kv);
        options.put(kv.substring(0, eq), kv.substring(eq + 1));
    }

    /**
     * Plans a stream scan `plans` times (after `restore` when given), printing per plan
     * {"snapshotId":N|null,"checkpoint":N|null,"rows":[rows with "_kind", sorted]} ({"end":true} at
     * EndOfScanException); `notify` calls notifyCheckpointComplete(checkpoint()) after each plan
     * (a consumer-id's progress).
     */
    static void streamRead(String warehouse, String ident, int plans, Map<String, String> dynamicOptions, Long restore, boolean notify, List<String[]> filters, PrintStream out) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            Table table = catalog.getTable(Identifier.fromString(ident));
            if (!dynamicOptions.isEmpty()) table = table.copy(dynamicOptions);
            RowType rt = table.rowType();
            ReadBuilder rb = table.newReadBuilder();
            if (!filters.isEmpty()) rb = rb.withFilter(predicateOf(rt, filters)); // pushed to the scan (pruning) and read, not executed
            org.apache.paimon.table.source.StreamTableScan scan = rb.newStreamScan();
            if (restore != null) scan.restore(restore);
            org.apache.paimon.table.source.TableRead tableRead = rb.newRead();
            for (int p = 0; p < plans; p++) {
                org.apache.paimon.table.source.TableScan.Plan plan;
                try {
                    plan = scan.plan();
                } catch (org.apache.paimon.table.source.EndOfScanException e) {
                    out.println("{\"end\":true}");
                    return;
                }
                List<String> rows = new ArrayList<>();
                StringBuilder sb = new StringBuilder();
                try (RecordReader<InternalRow> reader = tableRead.createReader(plan.splits())) {
                    reader.forEachRemaining(row -> {
                        sb.setLength(0);
                        sb.append("{\"_kind\":\"").append(row.getRowKind().shortString()).append('"');
                        for (int i = 0; i < rt.getFieldCount(); i++) {
                            sb.append(',');
                            str(sb, rt.getFieldNames().get(i));
                            sb.append(':');
                            DataType t = rt.getTypeAt(i);
                            val(sb, InternalRow.createFieldGetter(t, i).getFieldOrNull(row), t);
                        }
                        rows.add(sb.append('}').toString());
                    });
                }
                Map<String, List<String>> byKey = new TreeMap<>();
                for (String l : rows) byKey.computeIfAbsent(sortKey(l), k -> new ArrayList<>()).add(l);
                Long snapshotId = plan instanceof org.apache.paimon.table.source.snapshot.SnapshotReader.Plan ? ((org.apache.paimon.table.source.snapshot.SnapshotReader.Plan) plan).snapshotId() : null;
                Long checkpoint = scan.checkpoint();
                if (notify) scan.notifyCheckpointComplete(checkpoint);
                StringBuilder line = new StringBuilder("{\"snapshotId\":").append(snapshotId).append(",\"checkpoint\":").append(checkpoint).append(",\"rows\":[");
                boolean first = true;
                for (List<String> ls : byKey.values()) for (String l : ls) { line.append(first ? "" : ",").append(l); first = false; }
                out.println(line.append("]}").toString());
            }
        }
    }

    /** The row's JSON with keys sorted (same order as the Python oracle's --sort, up to escaping). */
    static String sortKey(String line) throws RuntimeException {
        try {
            Object tree = JSON.readValue(line, Object.class);
            return JSON.writer().with(org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                    .writeValueAsString(tree);
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static void val(StringBuilder sb, Object v, DataType t) {
        if (v == null) {
            sb.append("null");
            return;
        }
        switch (t.getTypeRoot()) {
            case CHAR: case VARCHAR: str(sb, v.toString()); break;
            case BOOLEAN: case TINYINT: case SMALLINT: case INTEGER: sb.append(v); break;
            case BIGINT: str(sb, v.toString()); break;
            case FLOAT: case DOUBLE: {
                double d = ((Number) v).doubleValue();
                if (Double.isNaN(d)) str(sb, "NaN");
                else if (Double.isInfinite(d)) str(sb, d > 0 ? "Infinity" : "-Infinity");
                else sb.append(Double.toString(d)); // FLOAT widened to double, like Python's float(np.float32)
                break;
            }
            case DECIMAL: str(sb, ((Decimal) v).toBigDecimal().toPlainString()); break;
            case BINARY: case VARBINARY: str(sb, Base64.getEncoder().encodeToString((byte[]) v)); break;
            case BLOB: {
                // base64 of the blob's bytes; with blob-as-descriptor=true of its serialized BlobDescriptor
                org.apache.paimon.data.Blob blob = (org.apache.paimon.data.Blob) v;
                str(sb, Base64.getEncoder().encodeToString(BLOB_AS_DESCRIPTOR ? blob.toDescriptor().serialize() : blob.toData()));
                break;
            }
            case DATE: str(sb, LocalDate.ofEpochDay((Integer) v).toString()); break;
            case TIME_WITHOUT_TIME_ZONE: sb.append((Integer) v); break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                Timestamp ts = (Timestamp) v;
                BigInteger nanos = BigInteger.valueOf(ts.getMillisecond()).multiply(NANOS_PER_MILLI)
                        .add(BigInteger.valueOf(ts.getNanoOfMillisecond()));
                str(sb, nanos.toString());
                break;
            }
            case ARRAY: {
                InternalArray arr = (InternalArray) v;
                DataType et = ((ArrayType) t).getElementType();
                InternalArray.ElementGetter g = InternalArray.createElementGetter(et);
                sb.append('[');
                for (int i = 0; i < arr.size(); i++) {
                    if (i > 0) sb.append(',');
                    val(sb, g.getElementOrNull(arr, i), et);
                }
                sb.append(']');
                break;
            }
            case MULTISET: case MAP: {
                InternalMap m = (InternalMap) v;
                DataType kt = t instanceof MapType ? ((MapType) t).getKeyType() : ((MultisetType) t).getElementType();
                DataType vt = t instanceof MapType ? ((MapType) t).getValueType() : DataTypes.INT().notNull();
                InternalArray.ElementGetter kg = InternalArray.createElementGetter(kt);
                InternalArray.ElementGetter vg = InternalArray.createElementGetter(vt);
                sb.append('[');
                for (int i = 0; i < m.size(); i++) {
                    if (i > 0) sb.append(',');
                    sb.append('[');
                    val(sb, kg.getElementOrNull(m.keyArray(), i), kt);
                    sb.append(',');
                    val(sb, vg.getElementOrNull(m.valueArray(), i), vt);
                    sb.append(']');
                }
                sb.append(']');
                break;
            }
            case ROW: {
                RowType r = (RowType) t;
                InternalRow in = (InternalRow) v;
                sb.append('{');
                for (int i = 0; i < r.getFieldCount(); i++) {
                    if (i > 0) sb.append(',');
                    str(sb, r.getFieldNames().get(i));
                    sb.append(':');
                    val(sb, InternalRow.createFieldGetter(r.getTypeAt(i), i).getFieldOrNull(in), r.getTypeAt(i));
                }
                sb.append('}');
                break;
            }
            case VARIANT: {
                Variant var = (Variant) v;
                sb.append("{\"value\":");
                str(sb, Base64.getEncoder().encodeToString(var.value()));
                sb.append(",\"metadata\":");
                str(sb, Base64.getEncoder().encodeToString(var.metadata()));
                sb.append(",\"json\":");
                str(sb, var.toJson());
                sb.append('}');
                break;
            }
            default: throw new IllegalArgumentException("cannot encode type " + t);
        }
    }

    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        sb.append('"');
    }

    static void deleteRecursively(File f) {
        File[] kids = f.listFiles();
        if (kids != null) for (File k : kids) deleteRecursively(k);
        f.delete();
    }

    // ------------------------------------------------------------------------------------------
    // Paimon type strings: "BIGINT NOT NULL", "DECIMAL(10, 2)", "ARRAY<INT>", "MAP<STRING, BIGINT>",
    // "ROW<a INT, b STRING>", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(6)".

    static final class TypeParser {
        private final String s;
        private int i;

        TypeParser(String s) { this.s = s; }

        DataType parseAll() {
            DataType t = parse();
            ws();
            if (i != s.length()) throw new IllegalArgumentException("trailing text at " + i + " in type '" + s + "'");
            return t;
        }

        private void ws() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }

        private boolean peek(String lit) {
            ws();
            return s.regionMatches(true, i, lit, 0, lit.length());
        }

        private void expect(String lit) {
            if (!peek(lit)) throw new IllegalArgumentException("expected '" + lit + "' at " + i + " in type '" + s + "'");
            i += lit.length();
        }

        private String word() {
            ws();
            int j = i;
            while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) j++;
            String w = s.substring(i, j);
            i = j;
            return w;
        }

        private DataType nullable(DataType t) {
            if (peek("NOT NULL")) {
                expect("NOT NULL");
                return t.copy(false);
            }
            if (peek("NULL")) expect("NULL");
            return t;
        }

        DataType parse() {
            int save = i;
            String w = word().toUpperCase();
            if ((w.equals("ARRAY") || w.equals("MULTISET")) && peek("<")) {
                expect("<");
                DataType e = parse();
                expect(">");
                return nullable(w.equals("ARRAY") ? DataTypes.ARRAY(e) : DataTypes.MULTISET(e));
            }
            if (w.equals("MAP") && peek("<")) {
                expect("<");
                DataType k = parse();
                expect(",");
                DataType v = parse();
                expect(">");
                return nullable(DataTypes.MAP(k, v));
            }
            if (w.equals("ROW") && peek("<")) {
                expect("<");
                List<DataField> fields = new ArrayList<>();
                while (true) {
                    ws();
                    String name;
                    if (s.charAt(i) == '`') {
                        int j = s.indexOf('`', i + 1);
                        name = s.substring(i + 1, j);
                        i = j + 1;
                    } else {
                        name = word();
                    }
                    DataType ft = parse();
                    fields.add(DataTypes.FIELD(fields.size(), name, ft));
                    if (peek(",")) {
                        expect(",");
                        continue;
                    }
                    break;
                }
                expect(">");
                return nullable(DataTypes.ROW(fields.toArray(new DataField[0])));
            }
            i = save;
            int depth = 0, j = i;
            while (j < s.length()) {
                char c = s.charAt(j);
                if (c == '(') depth++;
                else if (c == ')') depth--;
                else if (depth == 0 && (c == ',' || c == '>')) break;
                j++;
            }
            String atom = s.substring(i, j).trim().replaceAll("\\s+", " ").toUpperCase();
            i = j;
            atom = atom.replaceAll("^TIMESTAMP_LTZ(\\(\\d+\\))?", "TIMESTAMP$1 WITH LOCAL TIME ZONE")
                    .replace("WITH LOCAL TIME ZONE WITH LOCAL TIME ZONE", "WITH LOCAL TIME ZONE");
            return DataTypeJsonParser.parseAtomicTypeSQLString(atom);
        }
    }

    /**
     * The bloom filters of an ORC file as orc-core 1.9 reads them (RecordReaderImpl.readRowIndex):
     * one JSON line per stripe, column with a bloom filter stream and row group: the stream kind,
     * the number of hash functions and the bit set (hex of its 64-bit words, little-endian bytes).
     */
    static void orcBloom(String file, PrintStream out) throws Exception {
        // (as Paimon's OrcReaderFactory opens ORC files: its FileIO behind orc-core; Hadoop's
        // Configuration by reflection, a runtime dependency of the oracle)
        Class<?> confClass = Class.forName("org.apache.hadoop.conf.Configuration");
        Object conf = confClass.getConstructor(boolean.class).newInstance(false);
        java.lang.reflect.Method open = org.apache.paimon.format.orc.OrcReaderFactory.class.getMethod("createReader",
                confClass, org.apache.paimon.fs.FileIO.class, org.apache.paimon.fs.Path.class, org.apache.paimon.utils.RoaringBitmap32.class);
        try (org.apache.paimon.shade.org.apache.orc.Reader reader = (org.apache.paimon.shade.org.apache.orc.Reader)
                open.invoke(null, conf, org.apache.paimon.fs.local.LocalFileIO.create(), new org.apache.paimon.fs.Path(new File(file).getAbsolutePath()), null)) {
            int columns = reader.getSchema().getMaximumId() + 1;
            boolean[] all = new boolean[columns];
            java.util.Arrays.fill(all, true);
            org.apache.paimon.shade.org.apache.orc.impl.RecordReaderImpl rows =
                    (org.apache.paimon.shade.org.apache.orc.impl.RecordReaderImpl) reader.rows(new org.apache.paimon.shade.org.apache.orc.Reader.Options().include(all));
            try {
                for (int stripe = 0; stripe < reader.getStripes().size(); stripe++) {
                    org.apache.paimon.shade.org.apache.orc.impl.OrcIndex index = rows.readRowIndex(stripe, all, all);
                    org.apache.paimon.shade.org.apache.orc.OrcProto.BloomFilterIndex[] blooms = index.getBloomFilterIndex();
                    for (int column = 0; column < columns; column++) {
                        if (blooms[column] == null) continue;
                        String kind = String.valueOf(index.getBloomFilterKinds()[column]);
                        List<org.apache.paimon.shade.org.apache.orc.OrcProto.BloomFilter> entries = blooms[column].getBloomFilterList();
                        for (int group = 0; group < entries.size(); group++) {
                            org.apache.paimon.shade.org.apache.orc.OrcProto.BloomFilter bf = entries.get(group);
                            StringBuilder hex = new StringBuilder();
                            if (bf.hasUtf8Bitset()) {
                                for (byte b : bf.getUtf8Bitset().toByteArray()) hex.append(String.format("%02x", b & 0xff));
                            } else {
                                for (long w : bf.getBitsetList()) for (int k = 0; k < 8; k++) hex.append(String.format("%02x", (w >>> (8 * k)) & 0xff));
                            }
                            out.println("{\"stripe\":" + stripe + ",\"column\":" + column + ",\"group\":" + group + ",\"kind\":\"" + kind
                                    + "\",\"functions\":" + bf.getNumHashFunctions() + ",\"bits\":\"" + hex + "\"}");
                        }
                    }
                }
            } finally {
                rows.close();
            }
        }
    }

    /** orc-core's bloom filter hashes: Murmur3.hash64 of hex bytes, BloomFilter.getLongHash of longs and of doubles' bits. */
    static void orcHash(String kind, String[] values, PrintStream out) throws Exception {
        java.lang.reflect.Method longHash = org.apache.paimon.shade.org.apache.orc.util.BloomFilter.class.getDeclaredMethod("getLongHash", long.class);
        longHash.setAccessible(true);
        for (String v : values) {
            long h;
            switch (kind) {
                case "bytes": {
                    byte[] b = new byte[v.length() / 2];
                    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(v.substring(2 * i, 2 * i + 2), 16);
                    h = org.apache.paimon.shade.org.apache.orc.util.Murmur3.hash64(b);
                    break;
                }
                case "long": h = (Long) longHash.invoke(null, Long.parseLong(v)); break;
                case "double": h = (Long) longHash.invoke(null, Double.doubleToLongBits(Double.parseDouble(v))); break;
                default: throw new IllegalArgumentException("orc-hash kind " + kind);
            }
            out.println(h);
        }
    }
}
