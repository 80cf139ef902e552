// Package datagen generates rows for streamdb's datagen source connector,
// compatible with RisingWave's: a table's WITH options say how to generate
// each column.
//
//	fields.<column>.kind           random (default) or sequence
//	fields.<column>.start, .end    sequence bounds, default 0 and 32767
//	fields.<column>.min, .max      random bounds, default 0 and 32767
//	fields.<column>.seed           random seed, default the column's position
//	fields.<column>.length         random string length, default 10
//	fields.<column>.max_past       how far back random times go, default 1day
//	fields.<column>.max_past_mode  absolute (default: back from the source's
//	                               creation) or relative (back from now)
//	fields.<column>.basetime       RFC 3339 time to go back from instead
//	datagen.rows.per.second        rate of the source, default 10
//	datagen.split.num              splits, default 1
//
// Sequences count by one from start and work for integer, floating-point
// and numeric columns; the source's splits end when a sequence passes its
// end. Random values work for those types too (uniform in [min, max],
// numeric in steps of its scale), for boolean, for text and varchar
// (alphanumeric characters) and for timestamp, timestamptz and date
// (uniform in the max_past before the base time, to the millisecond).
//
// Row r of the table (split r mod n of n, at offset r div n) holds, in a
// sequence column, start+r, and in a random column a value drawn from a
// generator seeded with the column's seed and r. So a table does not depend
// on its number of splits, and a split is resumed from its offset alone.
// RisingWave seeds with the split's own offset xor its index instead, so
// its splits repeat each other's values; its default seed is also the same
// for every column, making columns of one type equal. Its random draws
// (ChaCha) are not reproduced. Unlike RisingWave, datagen here also
// generates numeric, boolean and date columns, and rejects options it does
// not use.
package datagen
