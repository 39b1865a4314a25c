{'targets': [{'target_name': 'addon', 'sources': ['addon.cc']}]}
