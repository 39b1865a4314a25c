from setuptools import find_packages, setup

setup(
    name="ticketd",
    version="2.4.0",
    python_requires=">=3.9",
    install_requires=[
        'Django>=4.2,<5',  # the web framework
        "psycopg2==2.9.9",
        'Pillow==10.*',
        'requests',
    ],
    extras_require={
        'memcached': ['pylibmc'],
        'mysql': ["mysqlclient"],
        'docs': ['sphinx'],
    },
    packages=find_packages(exclude=['tests']),
)
