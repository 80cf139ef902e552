// Package parser is streamdb's SQL front: it turns PostgreSQL-dialect text
// (as psql, pgx and sqllogictest files send it) into statements.
//
// Parse lexes the text with a PostgreSQL lexer (identifiers, keywords,
// numbers, '...', E'...', U&'...' and $tag$...$tag$ strings, $n,
// operators, comments) and splits it at top-level semicolons. Streaming and utility statements
// (CREATE TABLE/VIEW/MATERIALIZED VIEW/INDEX, DROP, ALTER ... SET
// PARALLELISM, SET/RESET/SHOW, transaction control, FLUSH, DISCARD,
// EXPLAIN) go to a small recursive-descent grammar and come back as
// Statement.Utility. Queries and DML (SELECT, VALUES, TABLE, WITH, set
// operations, INSERT, UPDATE, DELETE) are translated token by token into
// text the TiDB parser accepts (SQL mode ANSI_QUOTES | PIPES_AS_CONCAT |
// NO_BACKSLASH_ESCAPES) and come back as Statement.AST.
//
// # Translation contract
//
// PostgreSQL meaning that TiDB's grammar cannot express travels in marker
// function calls (ast.FuncCallExpr, FnName.L as below). The binder relies
// on exactly this:
//
//   - Identifiers are emitted backquoted with their final case (unquoted
//     lowercased, "quoted" exact), so MySQL-reserved words work as names.
//     Function names are emitted bare and lowercased so TiDB keeps its
//     builtin syntax (count(*), substring(x FROM a FOR b), trim(BOTH ...),
//     position(a IN b)); a few names TiDB rejects bare (int4, text, numeric,
//     mode, ...) are backquoted, which still gives a generic call. A
//     pg_catalog qualification on functions and types is dropped.
//   - x::type and CAST(x AS type) become pg_cast(x, 'type'), type being the
//     PostgreSQL type text lowercased and whitespace-normalized ('int8',
//     'double precision', 'varchar(10)', 'timestamp with time zone',
//     'int4[]', 'interval hour to minute'; a quoted type name keeps its
//     double quotes, as in '"char"'). :: binds to the preceding primary, so
//     -x::int is -(pg_cast(x, 'int')) and casts chain.
//   - Typed literals (DATE '...', INTERVAL '1' HOUR, int '1', timestamp with
//     time zone '...', any type name followed by a string) become
//     pg_cast('...', 'type'); interval fields and a precision go into the
//     type ('interval hour', 'interval hour to minute', 'interval second(3)').
//   - ARRAY[a, b] becomes pg_array(a, b) (ARRAY[] is pg_array()); x[i]
//     becomes pg_subscript(x, i) and the slice x[lo:hi] pg_slice(x, lo, hi),
//     an omitted bound being 1 or 2147483647. x op ANY|SOME (e) and x op ALL
//     (e), e not a subquery, become x op pg_any(e) and x op pg_all(e): the
//     binder reads the marker as the comparison's right operand.
//     ARRAY(query) becomes pg_array_query((query)); ARRAY[[1, 2], [3, 4]]
//     becomes pg_array(pg_array(1, 2), pg_array(3, 4)); x[i][j] nests
//     pg_subscript(pg_subscript(x, i), j) (pg_slice alike), which the
//     binder reads as one subscript of several dimensions.
//   - ROW(a, b) (also ROW() and ROW(a)) becomes pg_row(a, b); a bare
//     parenthesized list (a, b) stays TiDB's ast.RowExpr. Field selection
//     (x).name becomes pg_field(x, 'name') and (x).* pg_field(x, '*').
//   - $n becomes pg_param(n); Statement.NumParams is the highest n. In
//     LIMIT/OFFSET, where TiDB takes only literals, the Limit node holds the
//     same pg_param(n) call after parsing.
//   - A window frame offset (x PRECEDING|FOLLOWING) other than an unsigned
//     number, where TiDB takes only numbers, is parsed on its own: the
//     ast.FrameBound's Expr holds it after parsing (-1, NULL, $1, INTERVAL
//     '1' DAY as pg_cast('1', 'interval day')).
//   - A frame's EXCLUDE CURRENT ROW|GROUP|TIES moves into its end bound,
//     which becomes pg_frame_exclude('what', 'bound' [, offset]) FOLLOWING,
//     a side expression as above: what is 'current row', 'group' or 'ties',
//     bound 'current row', 'unbounded preceding', 'unbounded following',
//     'preceding' or 'following' (these two with the offset). A frame with
//     only a start bound gets BETWEEN and CURRENT ROW as its end first.
//     EXCLUDE NO OTHERS is dropped.
//   - RisingWave's SESSION WITH GAP g becomes RANGE BETWEEN
//     pg_session_gap(g) PRECEDING AND pg_session_gap(g) FOLLOWING.
//   - Numbers: integers are int literals; decimals keep their scale
//     (1.50); exponent forms and "5." become pg_cast('1e5', 'numeric');
//     0x/0o/0b and 1_000 forms become plain integers. Literals are *Literal
//     (see driver.go): int4 when they fit, else int8, else numeric; strings
//     are unknown-typed; TRUE/FALSE are bool; NULL is an unknown NULL. TiDB
//     itself turns ORDER BY/GROUP BY integer literals into ast.PositionExpr
//     and count(*) into COUNT(1).
//   - Strings ('...', E'...', $$...$$, U&'...', newline-continued) reach
//     TiDB as '...' and come back unchanged in the *Literal.
//   - ORDER BY expr NULLS FIRST|LAST becomes pg_nulls_first(expr) or
//     pg_nulls_last(expr), ASC/DESC kept after the call (also in window
//     specifications). ORDER BY 1 NULLS FIRST gives pg_nulls_first(1): the
//     binder must read an integer literal there as a position.
//   - FULL [OUTER] JOIN ... ON becomes STRAIGHT_JOIN ... ON: the binder reads
//     ast.Join{StraightJoin: true} as FULL OUTER (TiDB sets the flag on the
//     right node also inside parenthesized and chained joins). FULL JOIN
//     ... USING (a, b) becomes STRAIGHT_JOIN ... ON pg_using(a, b), and
//     NATURAL FULL [OUTER] JOIN item becomes STRAIGHT_JOIN item ON
//     pg_natural(), the marker following the whole right item (with its
//     alias): the binder joins on the common columns as for USING.
//   - a [NOT] BETWEEN SYMMETRIC b AND c becomes [NOT] ((a BETWEEN b AND c)
//     OR (a BETWEEN c AND b)), as PostgreSQL's parser expands it.
//   - a IS DISTINCT FROM b becomes (a <=> b IS FALSE) and a IS NOT DISTINCT
//     FROM b becomes (a <=> b), operands following PostgreSQL precedence.
//   - a ~~ b, !~~, ~~*, !~~* become (a LIKE b), NOT LIKE, ILIKE, NOT ILIKE.
//   - a [NOT] SIMILAR TO b [ESCAPE e] becomes pg_op('~', a,
//     similar_to_escape(b [, e])) (pg_op('!~', ...) when negated), as
//     PostgreSQL's grammar does, operands following LIKE's precedence.
//     substring(s SIMILAR b ESCAPE e) becomes substring(s, b, e), the SQL
//     regular expression substring(text, text, text). overlay(s PLACING
//     r FROM n [FOR m]) becomes overlay(s, r, n [, m]).
//   - Every other PostgreSQL operator TiDB lacks or binds differently —
//     || (string/array/jsonb concatenation), regex ~ ~* !~ !~*, jsonb -> ->>
//     #> #>> @> <@ ? ?| ?&, bitwise & | # << >> ~, and any user operator —
//     becomes pg_op('op', left, right), or pg_op('op', operand) when prefix,
//     with PostgreSQL's precedence: tighter than comparisons, LIKE, IN and
//     BETWEEN, looser than + - * / % ^. (|| is not left to TiDB's concat,
//     whose precedence differs and which the binder could not tell from a
//     call of PostgreSQL's NULL-skipping concat().) OPERATOR(pg_catalog.op)
//     is the operator itself. + - * / % ^ and comparisons stay TiDB's; ^ is
//     opcode.Xor, which the binder reads as power.
//   - ISNULL/NOTNULL become IS NULL/IS NOT NULL.
//   - In a SELECT without FROM, the HAVING clause moves to right after the
//     select list, the only place TiDB's grammar takes it there.
//   - agg(args) FILTER (WHERE cond) becomes pg_filter(agg(args), cond).
//   - agg(args ORDER BY k1 [ASC|DESC] [NULLS FIRST|LAST], ...) becomes
//     pg_agg_order(agg(args), k1, ...), a DESC key as pg_desc(k) and NULLS
//     FIRST|LAST around it as pg_nulls_first(...) or pg_nulls_last(...);
//     pg_distinct (below) goes inside, pg_filter outside. first_value and
//     last_value without OVER (RisingWave's aggregates) are backquoted.
//   - agg(DISTINCT args) of an aggregate other than count, sum, avg, min
//     and max (whose DISTINCT TiDB parses) becomes pg_distinct(agg(args)).
//   - agg(args) WITHIN GROUP (ORDER BY k1, ...) becomes
//     pg_within_group(agg(args), k1, ...), keys marked as in pg_agg_order;
//     pg_filter goes outside. DISTINCT or ORDER BY in the argument list is
//     42601, OVER after it 0A000 (as PostgreSQL's errors).
//   - stddev and variance, which TiDB would read as MySQL's population
//     statistics, are backquoted (std, not PostgreSQL's, too).
//   - agg(args) [FILTER (WHERE cond)] OVER w, agg being a function TiDB's
//     grammar takes no OVER after (any but count, sum, avg, min, max,
//     bit_and, bit_or, bit_xor, stddev_pop, stddev_samp, var_pop, var_samp
//     and the window functions), or any call with FILTER, becomes
//     first_value(pg_window_agg(call)) OVER w, call being the translated
//     agg(args) or pg_filter(agg(args), cond). The binder reads it as the
//     window aggregate call (named as call); window functions under FILTER
//     are backquoted generic calls, which the binder rejects.
//   - In GROUP BY, ROLLUP (x, ...) becomes pg_rollup(x, ...), CUBE (x, ...)
//     pg_cube(x, ...) and GROUPING SETS (e, ...) pg_grouping_sets(e, ...),
//     whose elements e are again grouping elements; a parenthesized list
//     that is a whole element or a ROLLUP or CUBE item — (a, b), or the
//     empty set () — becomes pg_set(a, b) (pg_set()), while (a) stays a
//     parenthesized expression. GROUP BY DISTINCT list becomes GROUP BY
//     pg_group_distinct(list); GROUP BY ALL is GROUP BY. GROUPING(a, b)
//     stays a call of grouping.
//   - EXTRACT(field FROM x) becomes pg_extract('field', x), field lowercased:
//     PostgreSQL 15's numeric-valued extract, not float8 date_part.
//   - LIMIT ALL and LIMIT NULL are no limit; OFFSET n without a limit gets
//     LIMIT 18446744073709551615; OFFSET n ROWS and FETCH FIRST|NEXT [n]
//     ROW|ROWS ONLY (n defaulting to 1) become LIMIT n OFFSET m; FETCH
//     FIRST|NEXT [n] ROW|ROWS WITH TIES becomes LIMIT pg_with_ties(n)
//     OFFSET m (the Limit node holds the call after parsing, as for $n).
//   - CURRENT_DATE, CURRENT_TIME, CURRENT_TIMESTAMP, LOCALTIME,
//     LOCALTIMESTAMP, CURRENT_USER, CURRENT_ROLE, SESSION_USER, SYSTEM_USER,
//     USER, CURRENT_SCHEMA and CURRENT_CATALOG become calls of the same
//     lowercased name (with their precision argument if given).
//   - x AT TIME ZONE z becomes timezone(z, x); COLLATE clauses are dropped
//     (streamdb compares strings bytewise, as the "C" collation does).
//   - VALUES (...), (...) as a query becomes VALUES ROW(...), ROW(...); in
//     INSERT the rows stay. INSERT ... DEFAULT VALUES becomes () VALUES ().
//   - A FROM item with a column alias list — (subquery) AS s(a, b), or a
//     table t AS u(a), which becomes (SELECT * FROM t) AS u(a) — is carried
//     by TiDB's LATERAL syntax; the LATERAL flag is cleared after parsing,
//     so ast.TableSource has Lateral false and ColumnNames set.
//   - A function call in FROM (generate_series(...), tumble(t, ts, interval),
//     hop(...)) becomes LATERAL (SELECT pg_table_function(f(args))) AS alias
//     [(columns)], the alias defaulting to the function name (for tumble and
//     hop, to the name of the relation they read); Lateral stays
//     true (table functions may refer to earlier FROM items). WITH
//     ORDINALITY after the call adds a second argument: pg_table_function(
//     f(args), 'ordinality').
//   - q1 UNION|INTERSECT|EXCEPT [ALL|DISTINCT] CORRESPONDING [BY (a, b)] q2
//     becomes q1 UNION ... SELECT pg_corresponding('a', 'b') FROM (q2) AS
//     pg_corresponding (no names without BY), q2 running to the next UNION
//     or EXCEPT (after INTERSECT, also INTERSECT), ORDER BY, LIMIT, OFFSET,
//     FETCH or the end.
//   - INSERT ... ON CONFLICT [(a, b)] DO NOTHING becomes ON DUPLICATE KEY
//     UPDATE pg_on_conflict = pg_conflict_do_nothing(a, b); ON CONFLICT (a)
//     DO UPDATE SET x = e, ... becomes ON DUPLICATE KEY UPDATE
//     pg_on_conflict = pg_conflict_do_update(a), x = e, ....
//   - RETURNING list is cut off the INSERT/UPDATE/DELETE and parsed into
//     Statement.Returning. INSERT INTO t AS alias, which TiDB's grammar
//     lacks, loses its alias in the translation; after parsing, the alias
//     is set on the target's ast.TableSource (AsName), where the binder
//     finds it for ON CONFLICT DO UPDATE and RETURNING.
//   - SELECT DISTINCT ON (e1, e2) list becomes SELECT pg_distinct_on(e1,
//     e2), list: the binder takes the marker off the select list.
//   - t FOR SYSTEM_TIME AS OF PROCTIME() in FROM (RisingWave's
//     processing-time temporal join) becomes t AS OF TIMESTAMP proctime():
//     ast.TableName.AsOf holds the call; other times are 0A000.
//   - Recognized but unsupported forms are 0A000 feature_not_supported:
//     ON CONFLICT ON CONSTRAINT, ROWS FROM, ORDER BY or
//     DISTINCT in an aggregate call with OVER,
//     UPDATE ... FROM,
//     DELETE ... USING, SELECT ... FOR UPDATE, bit-string literals, and
//     statement kinds such as GRANT, COPY, TRUNCATE, CREATE SOURCE/SINK.
//
// Errors are *pgerror.Error: 42601 `syntax error at or near "tok"` (or `at
// end of input`) with Position the 1-based character offset into the text
// given to Parse, also when TiDB finds the error in translated text.
package parser
