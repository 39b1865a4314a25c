import { sum } from "@example/native-sum";

console.log(`2 + 3 = ${sum(2, 3)} (native, Node ${process.version})`);
