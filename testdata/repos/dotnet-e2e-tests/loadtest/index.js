console.log("load");
